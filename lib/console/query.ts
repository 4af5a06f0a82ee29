/**
 * Query-string values of console routes, checked before they reach a query: whole numbers in
 * range, real dates, storable text. A bad value is a 400 naming the parameter.
 */
import { AppError } from "./errors";

/** Row ids and offsets: PostgreSQL bigint, but never beyond what JS numbers hold exactly. */
export function queryInt(url: URL, name: string, opts: { min?: number; max?: number } = {}): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return undefined;
  const min = opts.min ?? 0;
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new AppError("invalid_request", `${name}: use a whole number from ${min} to ${max}.`, { field: name });
  }
  return n;
}

/** A real instant between 1970 and 9999 (ISO 8601); `2024-13-45` and `1e30` are refused. */
export function parseInstant(raw: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw)) return null;
  const d = new Date(raw.length === 10 ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 9999) return null;
  // Date() rolls 2024-02-30 over to March; a real day must read back the same.
  if (d.toISOString().slice(0, 10) !== raw.slice(0, 10) && raw.length === 10) return null;
  const [y, m, day] = raw.slice(0, 10).split("-").map(Number) as [number, number, number];
  if (m < 1 || m > 12 || day < 1 || day > new Date(Date.UTC(y, m, 0)).getUTCDate()) return null;
  return d;
}

export function queryDate(url: URL, name: string): Date | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return undefined;
  const d = parseInstant(raw);
  if (!d) throw new AppError("invalid_request", `${name}: use an ISO 8601 date or time such as 2024-05-31T12:00:00Z.`, { field: name });
  return d;
}
