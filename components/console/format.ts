/**
 * Display formatting for the console. Money arrives as integer micro-USD.
 *
 * - Balances and totals: cents (`usd`), the exact figure on hover (`<Money>`).
 * - Per-request costs and ledger amounts: six fixed decimals (`usd(m, true)`), so a column
 *   lines up and a tiny charge never reads $0.00.
 * - Dates: one style in the browser's locale (`when`), the full timestamp on hover (`<Time>`).
 */
const usd2 = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const usd6 = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 6, maximumFractionDigits: 6 });
const int = new Intl.NumberFormat("en-US");

export function usd(micro: number | null | undefined, precise = false): string {
  if (micro === null || micro === undefined) return "—";
  const v = micro / 1_000_000;
  return precise ? usd6.format(v) : usd2.format(v);
}

const usdUpTo6 = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 6 });

/** In a sentence or a single figure: whole cents as "$0.25", anything finer exactly ("$0.0213"). */
export function usdProse(micro: number | null | undefined): string {
  return micro === null || micro === undefined ? "—" : usdUpTo6.format(micro / 1_000_000);
}

/** The exact amount, for hover titles and copy. */
export function usdExact(micro: number | null | undefined): string {
  return usd(micro, true);
}

export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? "—" : int.format(n);
}

// `undefined` locale: the browser's own. Pages render dates only after their data arrives in
// the browser, so server and client never disagree about the locale.
const dateTime = () => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const fullTime = () => new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "long" });
const dateOnly = () => new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

export function when(iso: string | null | undefined): string {
  return iso ? dateTime().format(new Date(iso)) : "—";
}

export function fullWhen(iso: string | null | undefined): string {
  return iso ? fullTime().format(new Date(iso)) : "—";
}

export function day(iso: string | null | undefined): string {
  return iso ? dateOnly().format(new Date(iso)) : "—";
}

const rtf = new Intl.RelativeTimeFormat("en-US", { numeric: "auto" });

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "never";
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 45) return "just now";
  if (abs < 3600) return rtf.format(Math.round(s / 60), "minute");
  if (abs < 86_400) return rtf.format(Math.round(s / 3600), "hour");
  if (abs < 30 * 86_400) return rtf.format(Math.round(s / 86_400), "day");
  return day(iso);
}

/** Micro-USD per million tokens as "$3.00 / 1M". */
export function perMTok(micro: number | undefined): string {
  return micro === undefined ? "—" : `${usd(micro)} / 1M`;
}
