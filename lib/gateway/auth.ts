/**
 * Finds the API key in a request and verifies it. `Authorization: Bearer` works everywhere and
 * wins over the other transports a route may accept (x-api-key, x-goog-api-key, ?key=).
 */
import { stampLastUsed, verifyKey } from "../keys/verify";
import { errors, type ApiError } from "./errors";
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

export async function authenticate(
  req: GatewayRequest,
  transports?: AuthTransports,
): Promise<{ ok: true; principal: Principal } | { ok: false; error: ApiError }> {
  const result = await verifyKey(extractCredential(req, transports));
  if (result.ok) {
    stampLastUsed(result.principal.keyId!);
    return result;
  }
  return { ok: false, error: result.reason === "account_disabled" ? errors.accountDisabled() : errors.invalidToken() };
}
