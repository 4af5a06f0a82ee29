import type { ModelPrice } from "@/db/schema";
import { usd } from "../console/format";

/** A one-line summary of a price (micro-USD) for tables. */
export function priceText(p: ModelPrice): string {
  const parts: string[] = [];
  if (p.inputPerMTok !== undefined) parts.push(`in ${usd(p.inputPerMTok)}/1M`);
  if (p.outputPerMTok !== undefined) parts.push(`out ${usd(p.outputPerMTok)}/1M`);
  if (p.perImage) parts.push(Object.entries(p.perImage).map(([k, v]) => `${k} ${usd(v)}`).join(", "));
  if (p.perVideo !== undefined) parts.push(`${usd(p.perVideo)}/video`);
  if (p.perSecond !== undefined) parts.push(`${usd(p.perSecond)}/s`);
  return parts.join(" · ") || "—";
}

/** micro-USD → the USD string shown in a price input. */
export function microInput(v: number | undefined): string {
  return v === undefined ? "" : String(v / 1_000_000);
}
