/**
 * What must go back to the vendor that issued it, carried through clients that only echo ids
 * and items (docs/conversion-policy.md, "Signatures"):
 * - a Gemini `thoughtSignature` on a function call rides inside the tool-call id the client sees
 *   (`<id>__thought__<base64url>`), so every client echoes it without knowing; any other upstream
 *   gets the bare id (both the call and its result, so pairs stay matched);
 * - Anthropic signed thinking rides in a Responses reasoning item's `encrypted_content`.
 * Nothing is stored: the signature is the issuer's own opaque, verified token.
 */
import type { ReasoningPart } from "../canonical";

const MARK = "__thought__";
/** Google's documented placeholder for a Gemini 3 function call whose signature is unknown. */
export const GEMINI_SKIP_SIGNATURE = "skip_thought_signature_validator";
const CARRIER = "gwr1.";

/** The id a client sees for a Gemini call with a signature (its exact text, as base64url). */
export function idWithSignature(id: string, signature: string | undefined): string {
  if (!signature) return id;
  return `${id}${MARK}${Buffer.from(signature, "utf8").toString("base64url")}`;
}

/** Splits a client-echoed tool-call id into the upstream's id and the signature it carries. */
export function splitToolId(id: string): { id: string; signature?: string } {
  const k = id.indexOf(MARK);
  if (k < 0) return { id };
  const sig = id.slice(k + MARK.length);
  if (!sig || !/^[A-Za-z0-9_-]+$/.test(sig)) return { id };
  return { id: id.slice(0, k), signature: Buffer.from(sig, "base64url").toString("utf8") };
}

/** The id an upstream sees: never another vendor's signature. */
export function bareToolId(id: string): string {
  const k = id.indexOf(MARK);
  return k < 0 ? id : id.slice(0, k);
}

/** Gemini 3 models validate the signatures of replayed function calls. */
export function isGemini3(upstreamModel: string): boolean {
  return /(^|\/)gemini-(?:[3-9])(?:[.-]|$)/.test(upstreamModel);
}

/** Anthropic thinking (or another vendor's opaque reasoning) → a Responses `encrypted_content`. */
export function reasoningCarrier(p: ReasoningPart): string | undefined {
  if (p.origin === "openai") return p.signature;
  if (!p.signature && !p.redacted) return undefined;
  const payload = JSON.stringify({ o: p.origin, t: p.text, s: p.signature, r: p.redacted });
  return CARRIER + Buffer.from(payload, "utf8").toString("base64url");
}

/** The reverse; an encrypted_content we did not make is OpenAI's own. */
export function reasoningFromCarrier(enc: string, summary: string): ReasoningPart {
  if (enc.startsWith(CARRIER)) {
    try {
      const v = JSON.parse(Buffer.from(enc.slice(CARRIER.length), "base64url").toString("utf8")) as { o?: string; t?: string; s?: string; r?: string };
      const origin = v.o === "anthropic" || v.o === "gemini" ? v.o : "other";
      return { type: "reasoning", origin, text: typeof v.t === "string" ? v.t : "", signature: v.s, redacted: v.r };
    } catch {
      return { type: "reasoning", origin: "other", text: summary };
    }
  }
  return { type: "reasoning", origin: "openai", text: summary, signature: enc };
}
