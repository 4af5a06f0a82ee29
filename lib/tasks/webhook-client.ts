/**
 * One delivery attempt: POST the stored body bytes to exactly the given URL, signed afresh.
 * The outcome decides what the queue does next (docs/webhooks.md, retries;
 * docs/design.md decisions on 3xx and 408/429):
 *   2xx → delivered; 4xx → stop at once; 3xx, 5xx, timeout, network error → retry.
 * Redirects are never followed, the response body is read to at most 64 KiB, and the whole
 * attempt (headers and body) is bounded by WEBHOOK_TIMEOUT_MS so a receiver that trickles
 * bytes cannot pin a worker.
 */
import type { Dispatcher } from "undici";
import { request } from "undici";
import { checkWebhookUrlShape, type WebhookUrlPolicy } from "./ssrf";
import { DELIVERY_HEADER, SIGNATURE_HEADER, signatureHeader } from "./webhook-signature";
import type { AttemptOutcome } from "../views";
export type { AttemptOutcome };

export interface AttemptInput {
  url: string;
  /** The exact bytes of every attempt of this delivery. */
  body: string;
  secret: string | null;
  deliveryId: string;
  timeoutMs: number;
  policy: WebhookUrlPolicy;
  /** The guarded dispatcher (guarded-dispatcher.ts); never the global one. */
  dispatcher: Dispatcher;
  nowS?: () => number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

export async function attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  // The URL rules may have changed since submission (allow-list edited): check again.
  const shape = checkWebhookUrlShape(input.url, input.policy);
  if (!shape.ok) return { result: "stop", statusCode: null, error: `webhook URL refused: ${shape.error}`, latencyMs: 0 };

  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "generation-gateway-webhooks/1",
    [DELIVERY_HEADER]: input.deliveryId,
  };
  if (input.secret) {
    const nowS = input.nowS?.() ?? Math.floor(Date.now() / 1000);
    headers[SIGNATURE_HEADER] = signatureHeader(input.secret, input.body, nowS);
  }
  const signal = AbortSignal.timeout(input.timeoutMs);
  try {
    const res = await request(shape.value.url, {
      method: "POST",
      headers,
      body: input.body,
      dispatcher: input.dispatcher,
      signal,
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
      // A fresh connection per attempt, so every attempt re-runs the connect-time check.
      reset: true,
    });
    await drain(res.body, MAX_RESPONSE_BYTES);
    const status = res.statusCode;
    if (status >= 200 && status < 300) return { result: "delivered", statusCode: status, error: null, latencyMs: latency() };
    if (status >= 300 && status < 400) {
      return { result: "retry", statusCode: status, error: `redirect (${status}) not followed`, latencyMs: latency() };
    }
    if (status >= 400 && status < 500) {
      return { result: "stop", statusCode: status, error: `receiver answered ${status}; 4xx stops delivery`, latencyMs: latency() };
    }
    return { result: "retry", statusCode: status, error: `receiver answered ${status}`, latencyMs: latency() };
  } catch (err) {
    return { result: "retry", statusCode: null, error: describeError(err, input.timeoutMs, signal), latencyMs: latency() };
  }
}

/** Reads and discards at most `limit` bytes (plus one chunk), then drops the connection. Returns bytes read. */
export async function drain(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<number> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (seen > limit) {
      body.destroy();
      break;
    }
  }
  return seen;
}

function describeError(err: unknown, timeoutMs: number, signal: AbortSignal): string {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (signal.aborted || e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT") {
    return `no answer within ${timeoutMs} ms`;
  }
  const code = e.code ?? e.cause?.code;
  if (code === "ESSRFBLOCKED") return e.message ?? "blocked";
  return `network error${code ? ` (${code})` : ""}: ${(e.message ?? e.cause?.message ?? "unknown").slice(0, 200)}`;
}

/** Delay before the attempt after `attemptsMade` failed ones, or null when the schedule is used up. */
export function nextRetryDelayS(attemptsMade: number, scheduleS: readonly number[]): number | null {
  return attemptsMade >= 1 && attemptsMade <= scheduleS.length ? scheduleS[attemptsMade - 1]! : null;
}
