/**
 * The one failover loop of every capability (text, embeddings, images, video submit): a model's
 * entries are tried in order; a retryable failure (429, 408, 5xx, timeouts, resets, garbage) is
 * retried on the same entry with exponential backoff and full jitter (at least the upstream's
 * Retry-After; a longer wait than `maxDelayMs` ends that entry's retries), then the next entry is
 * tried; a failure marked `failover` (the upstream refused our credentials) moves on at once; any
 * other failure (the request's own 4xx, the client gone) is the answer. Only before the first
 * byte reached the client: a stream counts as a success once its first event is read.
 *
 * Hooks for entry health (docs/gateway-internals.md, "Failover"): `order` chooses which entries
 * to try and in which order (priority/weight, skipping open circuits); `onOutcome` hears about
 * every attempt. Both may be given per call or installed once for the process with
 * `installFailoverHooks` (per-call ones win).
 */
import { backoffMs } from "../../backoff";
import { processSingleton } from "../../process-singleton";
import { sleep } from "../../sleep";
import type { Outcome, UpstreamFailure } from "../errors";
import { errors } from "../errors";
import type { Ok } from "../../result";

export interface RetryPolicy {
  /** Extra attempts on the same entry after the first (text 2, embeddings/images/video 0). */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const TEXT_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 250, maxDelayMs: 4000 };
/** Embeddings, images and video submissions: each entry once (an image retried costs minutes). */
export const NO_RETRY: RetryPolicy = { retries: 0, baseDelayMs: 0, maxDelayMs: 0 };

/** Whose fault an attempt's failure was, for health accounting: only `upstream` should count against the entry. */
export type Fault = "none" | "upstream" | "request" | "client";

export interface AttemptReport<R> {
  entry: R;
  ok: boolean;
  fault: Fault;
  /** The failure, when there was one (its `error.status`/`code` say what happened). */
  failure?: UpstreamFailure;
  /** Wall time of this attempt. */
  latencyMs: number;
  /** 0 for the first attempt on this entry, 1 for its first retry, … */
  retry: number;
}

export interface FailoverHooks<R = unknown> {
  /** Given the entries in the caller's order (catalog priority, then prompt-cache affinity), the ones to try, in order. */
  order?: (entries: readonly R[]) => readonly R[];
  /** After every attempt. Must not throw and must not block (it runs on the request path). */
  onOutcome?: (report: AttemptReport<R>) => void;
  /** The answer when `order` left every entry out (all circuits open): e.g. a 503 with Retry-After. */
  unavailable?: (entries: readonly R[]) => UpstreamFailure;
}

export interface FailoverOptions<R> extends FailoverHooks<R>, Partial<RetryPolicy> {
  /** The client's signal: no further attempt (nor backoff wait) once it aborts. */
  signal?: AbortSignal;
}

/**
 * A caller's options: its retry policy, the route plan's hooks and the client's signal, in one
 * object built by Object.assign — a spread copy that gains keys would get a hidden class of its
 * own per request (decision 0033).
 */
export function failoverOptions<R>(policy: RetryPolicy, hooks: FailoverHooks<R>, signal?: AbortSignal): FailoverOptions<R> {
  return Object.assign({}, policy, signal ? { signal } : null, hooks);
}

export type FailoverResult<T, R> = (Ok<T> | UpstreamFailure) & {
  /** The entry that answered last (the serving one on success); null when none was tried. */
  route: R | null;
  attempts: number;
};

/** Hooks of any entry type; installed() gives them the caller's. */
const hooksSlot = processSingleton("gateway.failoverHooks", () => ({ current: undefined as unknown }));

/** Installs process-wide hooks (upstream health). Returns a function that removes them. */
export function installFailoverHooks<R>(hooks: FailoverHooks<R>): () => void {
  const g = hooksSlot();
  g.current = hooks;
  return () => {
    if (g.current === hooks) g.current = undefined;
  };
}

function installed<R>(): FailoverHooks<R> | undefined {
  return hooksSlot().current as FailoverHooks<R> | undefined;
}

export async function failover<R, T>(
  entries: readonly R[],
  attempt: (entry: R) => Promise<Outcome<T>>,
  opts: FailoverOptions<R> = {},
): Promise<FailoverResult<T, R>> {
  const global = installed<R>();
  const order = opts.order ?? global?.order;
  const onOutcome = opts.onOutcome ?? global?.onOutcome;
  const unavailable = opts.unavailable ?? global?.unavailable;
  const retries = opts.retries ?? 0;
  const policy = { baseDelayMs: opts.baseDelayMs ?? TEXT_RETRY.baseDelayMs, maxDelayMs: opts.maxDelayMs ?? TEXT_RETRY.maxDelayMs };
  const signal = opts.signal;
  const list = order ? order(entries) : entries;
  if (list.length === 0 && entries.length > 0 && unavailable) return { route: null, attempts: 0, ...unavailable(entries) };

  let last: UpstreamFailure | null = null;
  let lastRoute: R | null = null;
  let attempts = 0;
  for (const entry of list) {
    for (let i = 0; i <= retries; i++) {
      if (signal?.aborted) return { route: lastRoute, attempts, ...(last ?? noUpstream()) };
      attempts++;
      const started = onOutcome ? performance.now() : 0;
      const r = await attempt(entry);
      lastRoute = entry;
      if (onOutcome) report(onOutcome, entry, r, performance.now() - started, i, signal);
      if (r.ok) return { route: entry, attempts, ...r };
      last = r;
      if (!r.retryable) {
        if (r.failover) break;
        return { route: entry, attempts, ...r };
      }
      if (i === retries) break;
      // The upstream's own wait is honoured; one longer than our longest wait is a quota
      // window, not a blip: the next entry now, else the client gets the failure and the wait.
      if (r.retryAfterMs !== undefined && r.retryAfterMs > policy.maxDelayMs) break;
      await sleep(backoffMs(i, { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs }, r.retryAfterMs), signal);
    }
  }
  return { route: lastRoute, attempts, ...(last ?? noUpstream()) };
}

function report<R, T>(onOutcome: NonNullable<FailoverHooks<R>["onOutcome"]>, entry: R, r: Outcome<T>, latencyMs: number, retry: number, signal?: AbortSignal) {
  const fault: Fault = r.ok ? "none" : signal?.aborted || r.error.status === 499 ? "client" : r.retryable || r.failover ? "upstream" : "request";
  try {
    onOutcome({ entry, ok: r.ok, fault, failure: r.ok ? undefined : r, latencyMs, retry });
  } catch {
    // A broken hook must not break the request.
  }
}

function noUpstream(): UpstreamFailure {
  return { ok: false, retryable: false, error: errors.upstream("No upstream could serve this model.") };
}
