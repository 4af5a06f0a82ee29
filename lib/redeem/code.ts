/**
 * Redeem code text: `GW-XXXX-XXXX-XXXX-XXXX`, 16 Crockford base32 characters = 80 random bits
 * (guessing one of a million live codes takes ~2^60 tries; redemption attempts are limited
 * too). Looked up by SHA-256 of the normalized text: at 80 bits a plain hash cannot be reversed
 * by trying, and it needs no secret that could be rotated away (decision 0019).
 */
import { createHash, randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const CODE_CHARS = 16;

export function generateCode(): string {
  const bytes = randomBytes(CODE_CHARS);
  let s = "";
  for (const b of bytes) s += ALPHABET[b & 31]; // 256 = 8 × 32: uniform
  return `GW-${s.match(/.{4}/g)!.join("-")}`;
}

/** The 16 characters of what a user typed (case, spaces, dashes, the GW prefix and O/I/L forgiven), or null. */
export function normalizeCode(input: string): string | null {
  let s = input.toUpperCase().replace(/[\s\-_.]/g, "");
  if (s.startsWith("GW") && s.length === CODE_CHARS + 2) s = s.slice(2);
  s = s.replace(/O/g, "0").replace(/[IL]/g, "1");
  if (s.length !== CODE_CHARS || [...s].some((c) => !ALPHABET.includes(c))) return null;
  return s;
}

export function codeHash(normalized: string): string {
  return createHash("sha256").update(`redeem:${normalized}`).digest("base64url");
}
