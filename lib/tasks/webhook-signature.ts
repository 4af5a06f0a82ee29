/**
 * `X-Shim-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (docs/webhooks.md, the
 * signature). Stripe's scheme, so stripe-node's verifyHeader can check it independently.
 * Every attempt signs afresh with a new `t` over the same body bytes, so a retry hours later
 * still passes a receiver's five-minute tolerance.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Result } from "../result";

export const SIGNATURE_HEADER = "x-shim-signature";
export const DELIVERY_HEADER = "x-shim-delivery";
export const SIGNATURE_TOLERANCE_S = 300;

export function signatureV1(secret: string, t: number, rawBody: string | Uint8Array): string {
  return createHmac("sha256", secret).update(`${t}.`).update(rawBody).digest("hex");
}

/** The header value for one attempt made at `nowS` (Unix seconds). */
export function signatureHeader(secret: string, rawBody: string | Uint8Array, nowS = Math.floor(Date.now() / 1000)): string {
  return `t=${nowS},v1=${signatureV1(secret, nowS, rawBody)}`;
}

/** The signed timestamp `t`, or why the header does not verify. */
export type VerifyResult = Result<number, "malformed" | "mismatch" | "too_old" | "in_future">;

/** The receiver side: what docs/webhooks.md shows, used by tests as a second implementation. */
export function verifySignature(
  header: string | undefined,
  rawBody: string | Uint8Array,
  secret: string,
  { toleranceS = SIGNATURE_TOLERANCE_S, nowS = Math.floor(Date.now() / 1000) } = {},
): VerifyResult {
  if (!header) return { ok: false, error: "malformed" };
  const parts = new Map<string, string[]>();
  for (const item of header.split(",")) {
    const i = item.indexOf("=");
    if (i <= 0) continue;
    const k = item.slice(0, i).trim();
    parts.set(k, [...(parts.get(k) ?? []), item.slice(i + 1).trim()]);
  }
  const tText = parts.get("t")?.[0];
  const t = tText && /^\d+$/.test(tText) ? Number(tText) : NaN;
  const sigs = parts.get("v1") ?? [];
  if (!Number.isSafeInteger(t) || sigs.length === 0) return { ok: false, error: "malformed" };
  const expected = Buffer.from(signatureV1(secret, t, rawBody), "hex");
  const match = sigs.some((s) => /^[0-9a-f]{64}$/.test(s) && timingSafeEqual(Buffer.from(s, "hex"), expected));
  if (!match) return { ok: false, error: "mismatch" };
  if (nowS - t > toleranceS) return { ok: false, error: "too_old" };
  if (t - nowS > toleranceS) return { ok: false, error: "in_future" };
  return { ok: true, value: t };
}
