/**
 * Finds the API key in a request and verifies it. `Authorization: Bearer` works everywhere and
 * wins over the other transports a route may accept (x-api-key, x-goog-api-key, ?key=).
 */
import { anyFailedKeyBlocks, failedKeyBlockedFor, recordFailedKey } from "../auth/rate-limit";
import { env } from "../env";
import { stampLastUsed, verifyKey } from "../keys/verify";
import { clientAddress } from "../trust-proxy";
import { errors, type ApiError } from "./errors";
import type { Result } from "../result";
import { header, type GatewayRequest } from "./http";
import type { AuthTransports, Principal } from "./types";

export function extractCredential(req: GatewayRequest, transports: AuthTransports = {}): string | undefined {
  const auth = header(req, "authorization");
  if (auth !== undefined) {
    const m = /^bearer\s+(.+)$/i.exec(auth.trim());
    return m ? m[1]!.trim() : "";
  }
  if (transports.xApiKey) {
    const v = header(req, "x-api-key");
    if (v !== undefined) return v.trim();
  }
  if (transports.googApiKey) {
    const v = header(req, "x-goog-api-key");
    if (v !== undefined) return v.trim();
  }
  if (transports.queryKey) {
    const v = req.url.searchParams.get("key");
    if (v !== null) return v.trim();
  }
  return undefined;
}

/** A Google SDK names its key in `x-goog-api-key` or `?key=`; other clients never do. */
export const isGoogleRequest = (req: GatewayRequest) => req.headers["x-goog-api-key"] !== undefined || req.url.searchParams.has("key");

/** An Anthropic SDK sends `anthropic-version` (and its key in `x-api-key`); OpenAI's sends neither. */
export const isAnthropicRequest = (req: GatewayRequest) => req.headers["anthropic-version"] !== undefined || req.headers["x-api-key"] !== undefined;

function address(req: GatewayRequest): string {
  return clientAddress(req.remoteAddress, header(req, "x-forwarded-for"), env().TRUST_PROXY);
}

/**
 * Verifies the request's key. Unknown keys are counted per client address (FAILED_KEY_RULE);
 * over the limit the address gets 429, and while it is refused only keys already in the cache
 * are accepted from it, so a flood of guesses costs no database query.
 */
export async function authenticate(
  req: GatewayRequest,
  transports?: AuthTransports,
): Promise<Result<Principal, ApiError>> {
  // Computing the address only when some address is refused keeps a valid key's path as it was.
  const blocked = anyFailedKeyBlocks() ? failedKeyBlockedFor(address(req)) : 0;
  const result = await verifyKey(extractCredential(req, transports), Date.now(), { cachedOnly: blocked > 0 });
  if (result.ok) {
    stampLastUsed(result.value.keyId!);
    return result;
  }
  if (result.error === "not_cached") return { ok: false, error: errors.tooManyFailedKeys(blocked) };
  if (result.error === "unknown") {
    const wait = await recordFailedKey(address(req)).catch(() => 0);
    if (wait > 0) return { ok: false, error: errors.tooManyFailedKeys(wait) };
  }
  return { ok: false, error: result.error === "account_disabled" ? errors.accountDisabled() : errors.invalidToken() };
}
