/**
 * CSV for exports (RFC 4180 quoting). Text cells that a spreadsheet would run as a formula
 * (leading = + - @ tab CR) get a leading apostrophe; numbers are written as numbers, and so is
 * a plain decimal string (usdCell's `-0.025000`): a spreadsheet reads it as a number, never a formula.
 */
export type CsvCell = string | number | boolean | null | undefined | Date;

const DECIMAL = /^-?\d+(\.\d+)?$/;

function cell(v: CsvCell): string {
  if (v === null || v === undefined) return "";
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  let s = v;
  if (/^[=+\-@\t\r]/.test(s) && !DECIMAL.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(header: string[], rows: CsvCell[][]): string {
  return [header, ...rows].map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}

export function csvResponse(filename: string, body: string): Response {
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    },
  });
}

/** micro-USD as a plain decimal USD string with six places, for exports. */
export function usdCell(micro: number): string {
  const sign = micro < 0 ? "-" : "";
  const abs = Math.abs(micro);
  return `${sign}${Math.floor(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, "0")}`;
}
