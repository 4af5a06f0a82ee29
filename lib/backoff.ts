/**
 * Exponential backoff, one rule for every retry loop: attempt n (from 0) waits up to
 * min(maxMs, baseMs·2^n). Full jitter (AWS architecture blog) draws uniformly below that cap,
 * so clients that failed together do not retry together; `jitter: false` waits the cap itself.
 * An upstream's Retry-After is honoured, up to maxMs.
 */
export interface Backoff {
  baseMs: number;
  maxMs: number;
  /** Default true (full jitter). */
  jitter?: boolean;
}

export function backoffMs(attempt: number, b: Backoff, retryAfterMs?: number, random: () => number = Math.random): number {
  const cap = Math.min(b.maxMs, b.baseMs * 2 ** Math.min(attempt, 30));
  const wait = b.jitter === false ? cap : Math.floor(random() * cap);
  return retryAfterMs !== undefined ? Math.min(Math.max(wait, retryAfterMs), b.maxMs) : wait;
}
