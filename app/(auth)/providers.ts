import { env } from "@/lib/env";

/** OAuth providers switched on by their env vars. */
export function enabledOAuthProviders(): string[] {
  const e = env();
  return [e.GITHUB_ID && e.GITHUB_SECRET ? "github" : null, e.GOOGLE_ID && e.GOOGLE_SECRET ? "google" : null].filter(Boolean) as string[];
}
