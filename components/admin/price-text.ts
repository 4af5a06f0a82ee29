import type { ModelPrice } from "@/components/console/types";
import { usd } from "../console/format";

/** A one-line summary of a price (micro-USD) for tables. */
export function priceText(p: ModelPrice): string {
  const parts: string[] = [];
  if (p.inputPerMTok !== undefined) parts.push(`in ${usd(p.inputPerMTok)}/1M`);
  if (p.outputPerMTok !== undefined) parts.push(`out ${usd(p.outputPerMTok)}/1M`);
  if (p.cacheReadPerMTok !== undefined) parts.push(`cache read ${usd(p.cacheReadPerMTok)}/1M`);
  if (p.cacheWrite5mPerMTok !== undefined) parts.push(`cache write 5 m ${usd(p.cacheWrite5mPerMTok)}/1M`);
  if (p.cacheWrite1hPerMTok !== undefined) parts.push(`cache write 1 h ${usd(p.cacheWrite1hPerMTok)}/1M`);
  if (p.reasoningPerMTok !== undefined) parts.push(`reasoning ${usd(p.reasoningPerMTok)}/1M`);
  // Text models: say which classes fall back (only text prices have an output price).
  if (p.outputPerMTok !== undefined && p.audioInputPerMTok === undefined && p.imageOutputPerMTok === undefined) {
    const atInput = [
      p.cacheReadPerMTok === undefined && "cache reads",
      p.cacheWrite5mPerMTok === undefined && p.cacheWrite1hPerMTok === undefined ? "cache writes" : p.cacheWrite5mPerMTok === undefined ? "5 m writes" : p.cacheWrite1hPerMTok === undefined && "1 h writes",
    ].filter(Boolean);
    if (atInput.length) parts.push(`${atInput.join(" and ")} at the input price`);
    if (p.reasoningPerMTok === undefined) parts.push("reasoning at the output price");
  }
  if (p.perImage) parts.push(Object.entries(p.perImage).map(([k, v]) => `${k} ${usd(v)}`).join(", "));
  if (p.perVideo !== undefined) parts.push(`${usd(p.perVideo)}/video`);
  if (typeof p.perSecond === "number") parts.push(`${usd(p.perSecond)}/s`);
  else if (p.perSecond) parts.push(Object.entries(p.perSecond).map(([k, v]) => `${k} ${usd(v)}/s`).join(", "));
  if (p.audioInputPerMTok !== undefined) parts.push(`audio in ${usd(p.audioInputPerMTok)}/1M`);
  if (p.audioOutputPerMTok !== undefined) parts.push(`audio out ${usd(p.audioOutputPerMTok)}/1M`);
  if (p.perMCharacters !== undefined) parts.push(`${usd(p.perMCharacters)}/1M characters`);
  if (p.imageInputPerMTok !== undefined) parts.push(`image in ${usd(p.imageInputPerMTok)}/1M`);
  if (p.imageOutputPerMTok !== undefined) parts.push(`image out ${usd(p.imageOutputPerMTok)}/1M`);
  return parts.join(" · ") || "—";
}

/** micro-USD → the USD string shown in a price input. */
export function microInput(v: number | undefined): string {
  return v === undefined ? "" : String(v / 1_000_000);
}
