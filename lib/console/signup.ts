/**
 * Email + password sign-up: SIGNUP (open, closed, or invite with an admin's valid unused invite,
 * or an admin's pending organisation invitation for that address), per-address rate limit, then createUser.
 */
import { z } from "zod";
import type { DB } from "../../db/client";
import { AppError } from "./errors";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/password";
import { env } from "../env";
import { checkInvite } from "../auth/invites";
import { signUpAttempt } from "../auth/rate-limit";
import { createUser, type UserRow } from "../auth/users";
import { signupTicket } from "../orgs/invites";

export const signUpSchema = z.object({
  email: z.string().trim().max(254).email("Enter a valid email address."),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
    .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`),
  name: z.string().trim().max(100).optional(),
  /** SIGNUP=invite: the token from the invite link. */
  invite: z.string().max(1000).optional(),
});

export const SIGNUP_INVITE_MESSAGE = "Sign-up on this gateway is by invitation. Ask an administrator for an invite link.";

export const SIGNUP_CLOSED_MESSAGE = "Sign-up is closed on this gateway. Ask an administrator to create your account.";

export async function signUp(db: DB, input: z.infer<typeof signUpSchema>, ip: string): Promise<UserRow> {
  const mode = env().SIGNUP;
  if (mode === "closed") throw new AppError("signup_closed", SIGNUP_CLOSED_MESSAGE);
  let inviteNonce: string | undefined;
  if (mode === "invite") {
    if (!input.invite) throw new AppError("signup_closed", SIGNUP_INVITE_MESSAGE, { field: "invite" });
    if (input.invite.startsWith("oinv_")) {
      const ticket = await signupTicket(db, input.invite, input.email);
      if (!ticket.ok) throw new AppError("signup_closed", ticket.error.message, { field: ticket.error.field });
    } else {
      const inv = checkInvite(input.invite, input.email);
      if (!inv.ok) throw new AppError("signup_closed", inv.error.message, { field: inv.error.field });
      inviteNonce = inv.value.nonce;
    }
  }
  const wait = await signUpAttempt(ip);
  if (wait > 0) throw new AppError("rate_limited", "Too many sign-ups from this address. Try again later.", { retryAfterS: wait });
  const result = await createUser(db, { email: input.email, password: input.password, name: input.name || null, via: "signup", inviteNonce });
  if (!result.ok && result.error === "invite_used") throw new AppError("signup_closed", "This invite has already been used. Ask an administrator for a new one.", { field: "invite" });
  if (!result.ok && result.error === "invite_unknown") throw new AppError("signup_closed", "This invite link is not valid. Ask an administrator for a new one.", { field: "invite" });
  if (!result.ok) throw new AppError("conflict", "An account with this email already exists. Sign in instead.", { field: "email" });
  return result.value;
}
