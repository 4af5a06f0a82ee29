/** Email + password sign-up: open unless SIGNUP=closed, per-address rate limit, then createUser. */
import { z } from "zod";
import type { DB } from "../../db/client";
import { AppError } from "../console/errors";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./password";
import { env } from "../env";
import { signUpAttempt } from "./rate-limit";
import { createUser, type UserRow } from "./users";

export const signUpSchema = z.object({
  email: z.string().trim().max(254).email("Enter a valid email address."),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
    .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`),
  name: z.string().trim().max(100).optional(),
});

export const SIGNUP_CLOSED_MESSAGE = "Sign-up is closed on this gateway. Ask an administrator to create your account.";

export async function signUp(db: DB, input: z.infer<typeof signUpSchema>, ip: string): Promise<UserRow> {
  if (env().SIGNUP === "closed") throw new AppError("signup_closed", SIGNUP_CLOSED_MESSAGE);
  const wait = await signUpAttempt(ip);
  if (wait > 0) throw new AppError("rate_limited", "Too many sign-ups from this address. Try again later.", { retryAfterS: wait });
  const result = await createUser(db, { email: input.email, password: input.password, name: input.name || null, via: "signup" });
  if (!result.ok) throw new AppError("conflict", "An account with this email already exists. Sign in instead.", { field: "email" });
  return result.user;
}
