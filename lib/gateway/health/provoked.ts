/**
 * Failures one request provokes on a healthy upstream are the caller's, not the upstream's
 * (decision 0035), so they never count towards its circuit:
 * - a 429 saying the request is too large is a per-request limit, not a rate limit (OpenAI:
 *   "Request too large for <model> … on tokens per min"): the upstream answered, like a 4xx;
 * - a timeout of a non-streamed generation: the caller chose to wait for the whole answer, as
 *   long as they asked it to be. A hung upstream still shows on streamed requests and resets.
 * Whatever else fails counts, with its caller: the circuit opens only when several fail.
 */
import type { AttemptReport, Fault } from "../upstreams/failover";

const TOO_LARGE = /\brequest too large\b/i;

export function healthFault(r: AttemptReport<unknown>, wholeAnswer: boolean): Fault {
  if (r.fault !== "upstream" || !r.failure) return r.fault;
  const e = r.failure.error;
  if (wholeAnswer && e.code === "upstream_timeout") return "client"; // not counted at all
  if (TOO_LARGE.test(e.message)) return "request";
  return "upstream";
}
