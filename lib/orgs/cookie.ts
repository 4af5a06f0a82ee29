/** The active-organisation cookie (lib/auth/session.ts reads it and checks it against memberships). */
import { ORG_COOKIE } from "../auth/session";
import { env } from "../env";

/** A JSON answer that also makes `accountId` the caller's active organisation. */
export function withActiveOrg(body: unknown, accountId: string): Response {
  const secure = env().publicBaseUrl.startsWith("https:") ? "; Secure" : "";
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: {
      "content-type": "application/json",
      "cache-control": "no-store",
      "set-cookie": `${ORG_COOKIE}=${encodeURIComponent(accountId)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`,
    },
  });
}
