/**
 * OpenTelemetry traces of the public API, exported over OTLP/HTTP (the official SDK) — off
 * unless OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, and then
 * nothing is loaded: every hook below starts with `if (!state()) return` (docs/decisions/0013-opentelemetry-traces.md).
 *
 * One span per request (`requestTrace`, from the gateway entry) carrying the GenAI semantic
 * conventions — model, provider, token classes, stream, time to first chunk — plus the cost and
 * the settlement; child spans for the hold, each upstream call and the settlement. Never a
 * prompt or a completion, unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 */
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import { otelEnv } from "./env";
import { logger } from "./logger";
import { processSingleton } from "./process-singleton";

interface State {
  tracer: Tracer;
  api: typeof import("@opentelemetry/api");
  captureContent: boolean;
  shutdown(): Promise<void>;
}

/** undefined until startTracing ran; null when tracing is off. */
const slot = processSingleton("gateway.tracing", () => ({ current: undefined as State | null | undefined }));

/** The tracing state, or null when tracing is off (the fast path of every hook). */
function state(): State | null {
  return slot().current ?? null;
}

/**
 * Starts the SDK when configured; the exporter reads the standard OTEL_EXPORTER_OTLP_* variables
 * (endpoint, headers, timeout) and the resource OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES.
 */
export async function startTracing(): Promise<void> {
  const g = slot();
  if (g.current !== undefined) return;
  const otel = otelEnv();
  if (!otel.enabled) {
    g.current = null;
    return;
  }
  const [api, { NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes, defaultResource }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const resource = defaultResource().merge(resourceFromAttributes({ "service.name": otel.serviceName }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register(); // AsyncLocalStorage context: child spans find their request span
  g.current = {
    api,
    tracer: api.trace.getTracer("generation-gateway"),
    captureContent: otel.captureContent,
    shutdown: () => provider.shutdown(),
  };
  logger().info({ endpoint: otel.endpoint }, "OpenTelemetry tracing on");
}

/** Flushes and stops the exporter (server shutdown). */
export async function stopTracing(): Promise<void> {
  const s = state();
  if (s) await s.shutdown().catch(() => undefined);
}

/** Content capture is on: the operator opted in. */
export function captureContent(): boolean {
  return state()?.captureContent ?? false;
}

/** At most this much of a body goes into a span attribute. */
const CONTENT_LIMIT = 64 * 1024;
export function contentAttribute(text: string): string {
  return text.length > CONTENT_LIMIT ? `${text.slice(0, CONTENT_LIMIT)}…[truncated]` : text;
}

export interface RequestTrace {
  span: Span;
  /** Runs `fn` with the request span as the active one (children attach to it). */
  run<T>(fn: () => T): T;
  /** Ends the span with the response; for a streamed body, when the stream ends. */
  finish<R extends { status: number; body: unknown }>(res: R, route: string): R;
}

/** The request span, or null when tracing is off. */
export function requestTrace(method: string, requestId: string): RequestTrace | null {
  const s = state();
  if (!s) return null;
  const { api } = s;
  const span = s.tracer.startSpan(method, { kind: api.SpanKind.SERVER, attributes: { "http.request.method": method, "gateway.request_id": requestId } });
  const ctx: Context = api.trace.setSpan(api.context.active(), span);
  return {
    span,
    run: (fn) => api.context.with(ctx, fn),
    finish<R extends { status: number; body: unknown }>(res: R, route: string): R {
      span.setAttribute("http.route", route);
      span.setAttribute("http.response.status_code", res.status);
      if (!span.isRecording()) return res;
      // The GenAI convention names the span "{operation} {model}"; other requests get the route.
      if (!(span as Marked)[NAMED]) span.updateName(`${method} ${route}`);
      if (res.status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      const body = res.body;
      if (body && typeof body === "object" && Symbol.asyncIterator in body) {
        // A stream: the settlement (and so the usage) comes at its end; keep the request span
        // active for the body, so the settlement span is its child.
        return { ...res, body: tracedBody(body as AsyncIterable<unknown>, api, ctx, span, s.captureContent) } as R;
      }
      if (s.captureContent && typeof body === "string") span.setAttribute("gateway.response.body", contentAttribute(body));
      span.end();
      return res;
    },
  };
}

/**
 * A streamed body inside its request span, ending the span at its end (a module-level generator
 * and a symbol on the span rather than a WeakSet: nothing made per request that V8's young
 * collector would keep alive; decision 0033).
 */
async function* tracedBody(inner: AsyncIterable<unknown>, api: State["api"], ctx: Context, span: Span, capture: boolean): AsyncGenerator<unknown> {
  const it = inner[Symbol.asyncIterator]();
  let seen = "";
  let done = false;
  try {
    for (;;) {
      const n = await api.context.with(ctx, () => it.next());
      if (n.done) break;
      if (capture && seen.length <= CONTENT_LIMIT && typeof n.value === "string") seen += n.value;
      yield n.value;
    }
    done = true;
  } finally {
    // A consumer that stops early (client gone) closes the inner stream too: its own
    // cleanup settles the request, inside this span.
    if (!done) await api.context.with(ctx, async () => void (await it.return?.()));
    if (capture && seen) span.setAttribute("gateway.response.body", contentAttribute(seen));
    span.end();
  }
}

/** Set on a request span that describeGeneration named. */
const NAMED = Symbol("gateway.span-named");
type Marked = Span & { [NAMED]?: true };

/** Names the request span "{operation} {model}" (GenAI semantic conventions) and sets `attributes`. */
export function describeGeneration(span: Span, operation: string, model: string | null, attributes: Attributes): void {
  (span as Marked)[NAMED] = true;
  span.updateName(model ? `${operation} ${model}` : operation);
  span.setAttributes({ "gen_ai.operation.name": operation, ...attributes });
}

/**
 * A child span of the active request around `fn` (the hold, the settlement, an upstream
 * call); `done` may add attributes from the result. With tracing off this is `fn()`.
 */
export async function childSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, done?: (span: Span, value: T) => void): Promise<T> {
  const s = state();
  if (!s) return fn();
  return s.tracer.startActiveSpan(name, { kind: s.api.SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const value = await fn();
      done?.(span, value);
      return value;
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: s.api.SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Starts a client span for an upstream HTTP call; the caller ends it (streams end later). */
export function upstreamSpan(url: string): Span | null {
  const s = state();
  if (!s) return null;
  let u: URL | null = null;
  try {
    u = new URL(url);
  } catch {
    /* no server attributes */
  }
  return s.tracer.startSpan("upstream POST", {
    kind: s.api.SpanKind.CLIENT,
    attributes: {
      "http.request.method": "POST",
      ...(u ? { "server.address": u.hostname, "server.port": Number(u.port || (u.protocol === "https:" ? 443 : 80)), "url.path": u.pathname } : {}),
    },
  });
}

export function endSpan(span: Span, error?: { status?: number; code?: string }): void {
  const s = state();
  if (error && s) {
    if (error.status) span.setAttribute("http.response.status_code", error.status);
    if (error.code) span.setAttribute("error.type", error.code);
    span.setStatus({ code: s.api.SpanStatusCode.ERROR });
  }
  span.end();
}
