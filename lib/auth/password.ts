/**
 * Console passwords: argon2id with OWASP's parameters (m = 19 MiB, t = 2, p = 1). API keys use
 * a fast hash (lib/keys) because they are random; passwords are not, so they get a slow KDF.
 */
import { hash, verify } from "@node-rs/argon2";

const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
/** argon2 takes any length; the cap only bounds the work an attacker can make us do. */
export const PASSWORD_MAX_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// Verified for unknown emails so that "no such user" and "wrong password" take the same time.
let dummyHash: Promise<string> | undefined;

/** True when `password` matches `stored`; with `stored` null it still spends the same work. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hash("not-a-real-password-for-timing", OPTIONS);
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false; // malformed stored hash: never a match
  }
}

/** A message for the sign-up form, or null when the password is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}
