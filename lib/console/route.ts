/**
 * The one wrapper every console route handler goes through: session from the cookie (checked
 * against the database), Origin check on state-changing methods, gateway-admin role or an
 * organisation capability where asked (lib/orgs/roles.ts), errors rendered as AppError bodies.
 * Handlers get plain inputs and return JSON-able values.
 */
import { checkOrigin } from "../auth/origin";
import { logger } from "../logger";
import { userFromCookies, type SessionUser } from "../auth/session";
import { can, ROLE_LABELS, type Capability } from "../orgs/roles";
import { findUnstorableText, isStorableText, unstorableMessage } from "../validate/text";
import { AppError, consoleRequestId, errorResponse, fromZod } from "./errors";

export interface ConsoleContext {
  req: Request;
  user: SessionUser;
  url: URL;
  requestId: string;
  /** Dynamic route segments (`[id]`). */
  params: Record<string, string>;
}

export interface ConsoleRouteOptions {
  admin?: boolean;
  /** The caller's role in the active organisation must allow this (403 otherwise). */
  can?: Capability;
}

const CAP_WORDS: Record<Capability, string> = {
  "keys.all": "manage every key",
  "keys.own": "create keys or use the playground",
  "usage.all": "see everyone's usage",
  ledger: "see the ledger",
  billing: "see or change billing",
  webhooks: "see webhooks",
  members: "manage members",
  settings: "change organisation settings",
  ownership: "transfer or delete the organisation",
};

export function requireCapability(user: SessionUser, cap: Capability): void {
  if (!can(user.orgRole, cap)) throw new AppError("forbidden", `Your role in this organisation (${ROLE_LABELS[user.orgRole]}) cannot ${CAP_WORDS[cap]}.`);
}


type Handler = (ctx: ConsoleContext) => Promise<unknown>;

export function consoleRoute(handler: Handler, opts: ConsoleRouteOptions = {}) {
  return async (req: Request, routeCtx?: { params?: Promise<Record<string, string | string[]>> }): Promise<Response> => {
    const requestId = consoleRequestId();
    try {
      const origin = checkOrigin(req.method, req.headers);
      if (!origin.ok) throw new AppError("cross_origin", "Cross-site request refused.");
      const user = await userFromCookies(req.headers.get("cookie"));
      if (!user) throw new AppError("unauthenticated", "Sign in to continue.");
      if (opts.admin && user.role !== "admin") throw new AppError("forbidden", "Admins only.");
      if (opts.can) requireCapability(user, opts.can);
      const raw = (await routeCtx?.params) ?? {};
      const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Array.isArray(v) ? v.join("/") : v]));
      const url = new URL(req.url);
      checkStorableInputs(url, params);
      const result = await handler({ req, user, url, requestId, params });
      if (result instanceof Response) return result;
      return new Response(JSON.stringify(result ?? { ok: true }), {
        status: 200,
        headers: { "content-type": "application/json", "cache-control": "no-store", "x-request-id": requestId },
      });
    } catch (err) {
      if (err instanceof AppError) {
        if (err.opts.cause) logger().warn({ err: err.opts.cause, requestId, code: err.code }, "console route error");
        return errorResponse(err, requestId);
      }
      logger().error({ err, requestId, path: new URL(req.url).pathname }, "console route failed");
      return errorResponse(new AppError("internal_error", `Something went wrong (request ${requestId}).`), requestId);
    }
  };
}

/** Query values and route segments go into queries: refuse what PostgreSQL cannot store as text. */
export function checkStorableInputs(url: URL, params: Record<string, string>): void {
  for (const [k, v] of url.searchParams) {
    if (!isStorableText(k) || !isStorableText(v)) throw new AppError("invalid_request", unstorableMessage(isStorableText(k) ? k : "query"), { field: isStorableText(k) ? k : "query" });
  }
  for (const [k, v] of Object.entries(params)) {
    if (!isStorableText(v)) throw new AppError("invalid_request", unstorableMessage(k), { field: k });
  }
}

const MAX_BODY_BYTES = 64 * 1024;

/** Parses a JSON body with a zod schema; a bad body is a 400 naming the field. */
export async function readBody<T>(req: Request, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }): Promise<T> {
  // Refuse by the declared length before reading, and by the real length after.
  if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw new AppError("invalid_request", "Request body too large.");
  const text = await req.text();
  if (text.length > MAX_BODY_BYTES) throw new AppError("invalid_request", "Request body too large.");
  let value: unknown;
  try {
    value = text ? JSON.parse(text) : {};
  } catch {
    throw new AppError("invalid_request", "Body is not valid JSON.");
  }
  const bad = findUnstorableText(value);
  if (bad !== null) throw new AppError("invalid_request", unstorableMessage(bad), bad ? { field: bad } : {});
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw fromZod(parsed.error);
  return parsed.data;
}
