/**
 * The public API's single entry: a GatewayRequest in, a GatewayResponse out. Matches the route,
 * authenticates, gives the handler its context and turns every failure into the error envelope
 * with an x-request-id. Knows nothing of Next.js or node:http (see server.ts, app/v1).
 */
import { performance } from "node:perf_hooks";
import { logger, sanitizeUrl } from "../logger";
import { metrics } from "../metrics";
import { newId } from "../ids";
import { requestTrace } from "../tracing";
import { authenticate } from "./auth";
import { DEFAULT_BODY_LIMIT, parseJsonBody, readBody } from "./body";
import { errorResponse, errors, type ApiError } from "./errors";
import type { GatewayRequest, GatewayResponse } from "./http";
import { Router } from "./router";
import { checkRateLimit, rateLimitHeaders } from "./rate-limit";
import { allRoutes } from "./routes";
import { isStorableText, unstorableMessage } from "../validate/text";
import type { Principal, RouteContext, RouteDef } from "./types";
import { processSingleton } from "../process-singleton";

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
  const startedAt = performance.now();
  const requestId = newId("request");
  let res: GatewayResponse;
  let errorCode: string | undefined;
  let errorObject: ApiError | undefined;
  let routeLabel = "unmatched";
  let limitHeaders: Record<string, string> | undefined;
  const trace = requestTrace(req.method, requestId); // null unless tracing is on
  const observe: RouteContext["observe"] = trace ? { span: trace.span } : {};
  try {
    const match = router.match(req.method, req.url.pathname);
    if (match.kind === "not_found") {
      res = errorResponse(errors.notFound(`Unknown route ${req.method} ${req.url.pathname.slice(0, 200)}.`));
    } else if (match.kind === "method_not_allowed") {
      res = errorResponse(errors.methodNotAllowed(req.method, match.allowed));
    } else {
      const def = match.def;
      routeLabel = def.path;
      const style = def.errorStyle ?? "openai";
      const badParam = unstorableParam(req.url.searchParams, match.params);
      if (badParam !== null) {
        const err = errors.invalidRequest(unstorableMessage(badParam), badParam);
        errorCode = err.code;
        errorObject = err;
        return finish(errorResponse(err, style));
      }
      let principal = opts.principal;
      if (!principal && def.auth !== false) {
        const auth = await authenticate(req, def.transports);
        if (!auth.ok) {
          res = errorResponse(auth.error, style);
          errorCode = auth.error.code;
          errorObject = auth.error;
          return finish(res);
        }
        principal = auth.principal;
      }
      if (principal) {
        const decision = await checkRateLimit(principal);
        limitHeaders = rateLimitHeaders(decision);
        if (!decision.allowed) {
          metrics().rateLimited.inc();
          const err = errors.rateLimited(decision.resetS);
          errorCode = err.code;
          errorObject = err;
          return finish(errorResponse(err, style));
        }
      }
      const limit = typeof def.bodyLimit === "function" ? def.bodyLimit() : (def.bodyLimit ?? DEFAULT_BODY_LIMIT);
      let body: Promise<{ ok: true; value: Buffer } | { ok: false; error: ApiError }> | undefined;
      const ctx: RouteContext = {
        req,
        requestId,
        startedAt,
        params: match.params,
        principal: principal as Principal,
        readBody: () => (body ??= readBody(req, limit)),
        readJson: async () => {
          const b = await ctx.readBody();
          return b.ok ? parseJsonBody(b.value) : b;
        },
        error: (err) => {
          errorCode = err.code;
          errorObject = err;
          return errorResponse(err, style);
        },
        observe,
        settleAfterReply: opts.settleAfterReply ?? false,
      };
      res = await (trace ? trace.run(() => def.handler(ctx)) : def.handler(ctx));
    }
  } catch (err) {
    logger().error({ err, requestId, path: sanitizeUrl(req.url.pathname + req.url.search) }, "unhandled error in gateway");
    errorObject = errors.internal(requestId);
    res = errorResponse(errorObject);
    errorCode = "internal_error";
  }
  return finish(res);

  function finish(r: GatewayResponse): GatewayResponse {
    r.headers["x-request-id"] = requestId;
    if (limitHeaders) Object.assign(r.headers, limitHeaders);
    const seconds = (performance.now() - startedAt) / 1000;
    const labels = { route: routeLabel, model: observe.model ?? "", status: String(r.status) };
    const m = metrics();
    m.requests.inc(labels);
    m.duration.observe(labels, seconds);
    const log = logger();
    const level = r.status >= 500 ? "warn" : r.status >= 400 ? "info" : "debug";
    // The line (a URL parse among it) is built only when its level is on: not for a success by default.
    if (log.isLevelEnabled(level)) {
      const line = {
        requestId,
        method: req.method,
        path: sanitizeUrl(req.url.pathname + req.url.search),
        status: r.status,
        ms: Math.round(seconds * 100_000) / 100,
        model: observe.model,
        error: errorObject ? { message: errorObject.message, type: errorObject.type, code: errorObject.code } : errorCode ? { code: errorCode } : undefined,
      };
      log[level](line, r.status >= 500 ? "request failed" : r.status >= 400 ? "request refused" : "request");
    }
    return trace ? trace.finish(r, routeLabel) : r;
  }
}
