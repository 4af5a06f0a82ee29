/** Email + password sign-up: validation, per-address rate limit, then createUser. */
import { z } from "zod";
import type { DB } from "../../db/client";
import { AppError } from "../console/errors";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./password";
import { blockedFor, hit, SIGN_UP_RULE } from "./rate-limit";
import { createUser, type UserRow } from "./users";

export const signUpSchema = z.object({
  email: z.string().trim().max(254).email("Enter a valid email address."),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
    .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`),
  name: z.string().trim().max(100).optional(),
});

export async function signUp(db: DB, input: z.infer<typeof signUpSchema>, ip: string): Promise<UserRow> {
  const wait = blockedFor(`up:${ip}`, SIGN_UP_RULE);
  if (wait > 0) throw new AppError("rate_limited", "Too many sign-ups from this address. Try again later.", { retryAfterS: wait });
  hit(`up:${ip}`, SIGN_UP_RULE);
  const result = await createUser(db, { email: input.email, password: input.password, name: input.name || null, via: "signup" });
  if (!result.ok) throw new AppError("conflict", "An account with this email already exists. Sign in instead.", { field: "email" });
  return result.user;
}
