/** Display formatting for the console. Money arrives as integer micro-USD. */
const usd2 = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const usd6 = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 6 });
const int = new Intl.NumberFormat("en-US");
const dateTime = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat("en-US", { dateStyle: "medium" });

/**
 * Whole cents as "$12.50"; anything finer with up to six decimals ("$9.99995", "$0.000042"),
 * so a balance never looks unchanged after a tiny charge.
 */
export function usd(micro: number | null | undefined, precise = false): string {
  if (micro === null || micro === undefined) return "—";
  const v = micro / 1_000_000;
  return precise || micro % 10_000 !== 0 ? usd6.format(v) : usd2.format(v);
}

export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? "—" : int.format(n);
}

export function when(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : "—";
}

export function day(iso: string | null | undefined): string {
  return iso ? dateOnly.format(new Date(iso)) : "—";
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
  return dateOnly.format(new Date(iso));
}

/** Micro-USD per million tokens as "$3.00 / 1M". */
export function perMTok(micro: number | undefined): string {
  return micro === undefined ? "—" : `${usd(micro)} / 1M`;
}
