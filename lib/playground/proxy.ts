/**
 * The playground's way into the public API: a console route handler (cookie session, Origin
 * check) turns the browser's request into a GatewayRequest for the same path and calls the
 * gateway entry with the signed-in account as Principal. Same routes, billing, request log
 * (source "playground") and rate limits as an API key; the browser's AbortSignal is the
 * request's signal, so Stop aborts the upstream call and only what was generated is billed.
 * Streams reach the browser chunk by chunk (no buffering by us or a proxy in front).
 */
import { checkOrigin } from "../auth/origin";
import { userFromCookies } from "../auth/session";
import { can } from "../orgs/roles";
import { AppError, consoleRequestId, errorResponse } from "../console/errors";
import { handleGatewayRequest } from "../gateway/entry";
import { toWebBody } from "../gateway/web-body";
import { ensurePrepared } from "../runtime/prepare";
import { gatewayPathOf, playgroundAllows } from "./gateway-paths";
import { playgroundPrincipal } from "./principal";

/** Request headers the gateway routes read; cookies and credentials never pass. */
const FORWARD = ["content-type", "content-length", "accept", "range", "if-range", "idempotency-key", "anthropic-version", "anthropic-beta"];

export async function playgroundProxy(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const path = gatewayPathOf(url.pathname);
  const origin = checkOrigin(request.method, request.headers);
  if (!origin.ok) return errorResponse(new AppError("cross_origin", "Cross-site request refused."));
  const user = await userFromCookies(request.headers.get("cookie"));
  if (!user) return errorResponse(new AppError("unauthenticated", "Sign in to continue."));
  // The playground spends the organisation's money: the same capability as creating a key.
  if (!can(user.orgRole, "keys.own")) return errorResponse(new AppError("forbidden", "Your role in this organisation cannot use the playground."));
  if (!path || !playgroundAllows(request.method, path)) return errorResponse(new AppError("not_found", "The playground does not offer this route."));
  await ensurePrepared();
  const who = await playgroundPrincipal(user);
  if (!who.ok) {
    const requestId = consoleRequestId();
    return new Response(
      JSON.stringify({ error: { message: "This account is disabled. Contact an administrator.", type: "permission_error", code: "account_disabled" } }),
      { status: 403, headers: { "content-type": "application/json", "x-request-id": requestId } },
    );
  }
  const headers: Record<string, string> = {};
  for (const h of FORWARD) {
    const v = request.headers.get(h);
    if (v !== null) headers[h] = v;
  }
  const res = await handleGatewayRequest(
    {
      method: request.method,
      url: new URL(path + url.search, url),
      headers,
      body: request.body ? (request.body as unknown as AsyncIterable<Uint8Array>) : null,
      signal: request.signal,
    },
    { principal: who.value },
  );
  const out = new Headers(res.headers);
  if ((out.get("content-type") ?? "").startsWith("text/event-stream")) out.set("cache-control", "no-cache, no-transform");
  else if (!out.has("cache-control")) out.set("cache-control", "private, no-store");
  out.set("x-accel-buffering", "no");
  return new Response(toWebBody(res.body), { status: res.status, headers: out });
}
