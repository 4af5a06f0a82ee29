/**
 * The public API's single entry: a GatewayRequest in, a GatewayResponse out. Matches the route,
 * authenticates, gives the handler its context and turns every failure into the error envelope
 * with an x-request-id. Knows nothing of Next.js or node:http (see lib/runtime/node-gateway.ts).
 */
import { performance } from "node:perf_hooks";
import { logger, sanitizeUrl } from "../logger";
import { metrics } from "../metrics";
import { newId } from "../ids";
import { requestTrace } from "../tracing";
import { authenticate } from "./auth";
import { DEFAULT_BODY_LIMIT, parseJsonBody, readBody } from "./body";
import { errorResponse, errors, type ApiError, type ErrorStyle } from "./errors";
import type { GatewayRequest, GatewayResponse } from "./http";
import { Router } from "./router";
import { checkRateLimit, rateLimitHeaders } from "./rate-limit";
import { allRoutes } from "./routes";
import { isStorableText, unstorableMessage } from "../validate/text";
import type { Principal, RouteContext, RouteDef } from "./types";
import { processSingleton } from "../process-singleton";
import { afterReplyIdle } from "../after-reply";
import { textSettlementsIdle } from "../billing/text-settle-batch";
import { storedResponsesIdle } from "./stored-responses/store";
import type { Result } from "../result";

export interface HandleOptions {
  /** Skip key auth: the console's playground calls with the signed-in user's account. */
  principal?: Principal;
  /** See RouteContext.settleAfterReply; only the long-lived custom server sets it. */
  settleAfterReply?: boolean;
}

export type GatewayHandler = (req: GatewayRequest, opts?: HandleOptions) => Promise<GatewayResponse>;

const gatewayHandler = processSingleton("gateway.handler", () => createGatewayHandler(allRoutes()));

/** The public API over every route (lib/gateway/routes). */
export function handleGatewayRequest(req: GatewayRequest, opts: HandleOptions = {}): Promise<GatewayResponse> {
  return gatewayHandler()(req, opts);
}

/** The first query or path parameter that cannot be stored as text (lib/validate/text), or null. */
function unstorableParam(query: URLSearchParams, params: Record<string, string>): string | null {
  for (const [k, v] of query) if (!isStorableText(k) || !isStorableText(v)) return isStorableText(k) ? k : "query";
  for (const [k, v] of Object.entries(params)) if (!isStorableText(v)) return k;
  return null;
}

export function createGatewayHandler(routes: RouteDef[]): GatewayHandler {
  const router = new Router(routes);
  return (req, opts = {}) => handle(router, req, opts);
}

async function handle(router: Router, req: GatewayRequest, opts: HandleOptions): Promise<GatewayResponse> {
  const ex = new Exchange(req);
  let res: GatewayResponse;
  try {
    res = await dispatch(router, req, opts, ex);
  } catch (err) {
    logger().error({ err, requestId: ex.requestId, path: sanitizeUrl(req.url.pathname + req.url.search) }, "unhandled error in gateway");
    res = ex.refuse(errors.internal(ex.requestId));
  }
  return ex.finish(res);
}

/** Match, check the parameters, admit, then the route's handler with its context. */
async function dispatch(router: Router, req: GatewayRequest, opts: HandleOptions, ex: Exchange): Promise<GatewayResponse> {
  const match = router.match(req.method, req.url.pathname);
  if (match.kind === "not_found") return errorResponse(errors.notFound(`Unknown route ${req.method} ${req.url.pathname.slice(0, 200)}.`));
  if (match.kind === "method_not_allowed") return errorResponse(errors.methodNotAllowed(req.method, match.allowed));
  const def = match.def;
  ex.route = def.path;
  const style = typeof def.errorStyle === "function" ? def.errorStyle(req) : (def.errorStyle ?? "openai");
  const badParam = unstorableParam(req.url.searchParams, match.params);
  if (badParam !== null) return ex.refuse(errors.invalidRequest(unstorableMessage(badParam), badParam), style);
  const who = await admit(def, req, opts, ex);
  if (!who.ok) return ex.refuse(who.error, style);
  const limit = typeof def.bodyLimit === "function" ? def.bodyLimit() : (def.bodyLimit ?? DEFAULT_BODY_LIMIT);
  let body: Promise<Result<Buffer, ApiError>> | undefined;
  const ctx: RouteContext = {
    req,
    requestId: ex.requestId,
    startedAt: ex.startedAt,
    params: match.params,
    principal: who.value as Principal,
    readBody: () => (body ??= readBody(req, limit)),
    readJson: async () => {
      const b = await ctx.readBody();
      return b.ok ? parseJsonBody(b.value) : b;
    },
    error: (err) => ex.refuse(err, style),
    observe: ex.observe,
    settleAfterReply: opts.settleAfterReply ?? false,
  };
  return ex.trace ? ex.trace.run(() => def.handler(ctx)) : def.handler(ctx);
}

/** Key auth (unless the caller brings a principal or the route needs none), then the rate limit. */
async function admit(def: RouteDef, req: GatewayRequest, opts: HandleOptions, ex: Exchange): Promise<Result<Principal | undefined, ApiError>> {
  let principal = opts.principal;
  if (!principal && def.auth !== false) {
    const auth = await authenticate(req, def.transports);
    if (!auth.ok) return auth;
    principal = auth.value;
  }
  if (principal) {
    const decision = await checkRateLimit(principal);
    ex.limitHeaders = rateLimitHeaders(decision);
    if (!decision.allowed) {
      metrics().rateLimited.inc();
      return { ok: false, error: errors.rateLimited(decision.resetS) };
    }
  }
  return { ok: true, value: principal };
}

/** One request's bookkeeping from arrival to reply: its id, trace, route label, refusal and limit headers. */
class Exchange {
  readonly startedAt = performance.now();
  readonly requestId = newId("request");
  /** null unless tracing is on. */
  readonly trace: ReturnType<typeof requestTrace>;
  readonly observe: RouteContext["observe"];
  route = "unmatched";
  limitHeaders: Record<string, string> | undefined;
  private error: ApiError | undefined;

  constructor(private readonly req: GatewayRequest) {
    this.trace = requestTrace(req.method, this.requestId);
    this.observe = this.trace ? { span: this.trace.span } : {};
  }

  /** The error envelope for `err`, remembered for the log line and the metrics. */
  refuse(err: ApiError, style?: ErrorStyle): GatewayResponse {
    this.error = err;
    return errorResponse(err, style);
  }

  /** Request id and limit headers on the reply, then metrics and the log line. */
  finish(r: GatewayResponse): GatewayResponse {
    const { req, error, observe } = this;
    r.headers["x-request-id"] = this.requestId;
    if (this.limitHeaders) Object.assign(r.headers, this.limitHeaders);
    if (observe.headers) Object.assign(r.headers, observe.headers);
    const seconds = (performance.now() - this.startedAt) / 1000;
    const labels = { route: this.route, model: observe.model ?? "", status: String(r.status) };
    const m = metrics();
    m.requests.inc(labels);
    m.duration.observe(labels, seconds);
    const log = logger();
    const level = r.status >= 500 ? "warn" : r.status >= 400 ? "info" : "debug";
    // The line (a URL parse among it) is built only when its level is on: not for a success by default.
    if (log.isLevelEnabled(level)) {
      const line = {
        requestId: this.requestId,
        method: req.method,
        path: sanitizeUrl(req.url.pathname + req.url.search),
        status: r.status,
        ms: Math.round(seconds * 100_000) / 100,
        model: observe.model,
        error: error ? { message: error.message, type: error.type, code: error.code } : undefined,
      };
      log[level](line, r.status >= 500 ? "request failed" : r.status >= 400 ? "request refused" : "request");
    }
    return this.trace ? this.trace.finish(r, this.route) : r;
  }
}

/**
 * Waits for what the gateway's replies left running, in order: settlements not yet committed
 * (a reply may go before its settlement, decision 0006), stored responses not yet written, and
 * work after the reply (background responses, queued emails, alerts, last-used stamps). A
 * shutdown calls this before closing the database.
 */
export async function drainGateway(): Promise<void> {
  await textSettlementsIdle();
  await storedResponsesIdle();
  await afterReplyIdle();
}
