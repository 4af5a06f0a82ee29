import { dataDirSecret } from "../crypto";
import { defaultEnvFor, env } from "../env";

/**
 * next-auth's signing/encryption secret: AUTH_SECRET, or one generated once under DATA_DIR.
 * Several instances sharing a database must share AUTH_SECRET, or sessions only work on the
 * instance that issued them.
 */
export function authSecret(): string {
  return env().AUTH_SECRET ?? dataDirSecret("auth.secret");
}

/** next-auth v4 reads NEXTAUTH_URL for callbacks and redirects; ours comes from PUBLIC_BASE_URL. */
export function ensureNextAuthUrl(): void {
  defaultEnvFor("NEXTAUTH_URL", env().publicBaseUrl);
}
