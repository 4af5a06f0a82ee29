import { getDb } from "@/db/client";
import { env } from "@/lib/env";
import { instanceOidc } from "@/lib/sso/oidc";
import { anyOrgIdp } from "@/lib/sso/settings";

/** OAuth providers switched on by their env vars. */
export function enabledOAuthProviders(): string[] {
  const e = env();
  return [e.GITHUB_ID && e.GITHUB_SECRET ? "github" : null, e.GOOGLE_ID && e.GOOGLE_SECRET ? "google" : null].filter(Boolean) as string[];
}

/** Single sign-on on the sign-in page: the instance-wide OIDC button's label, and whether any organisation has its own IdP. */
export async function ssoOptions(): Promise<{ instanceName: string | null; byEmail: boolean } | null> {
  const instanceName = instanceOidc()?.name ?? null;
  const byEmail = await anyOrgIdp(await getDb());
  return instanceName || byEmail ? { instanceName, byEmail } : null;
}
