/**
 * One request's route: the hooks it passes to failover() and, afterwards, the record of which
 * entry served, which failed, and which were skipped and why — the request-log row's
 * `route_trace` (docs/configuration.md, "Upstream health and routing").
 */
import type { RouteTraceEntry } from "../../../db/schema";
import { errors, type UpstreamFailure } from "../errors";
import type { AttemptReport, FailoverHooks } from "../upstreams/failover";
import type { Health, Skip } from "./health";
import { healthFault } from "./provoked";
import { tierOf, weightOf, type Routable } from "./routing";

export type { RouteTraceEntry };
export type RouteTrace = RouteTraceEntry[];

interface Seen {
  attempts: number;
  ok: boolean;
  failure?: UpstreamFailure;
  fault?: string;
}

export interface TrackedRoute<R> {
  hooks: Required<Pick<FailoverHooks<R>, "order" | "onOutcome" | "unavailable">>;
  /** null when there was nothing to choose (one entry, served at its first attempt). */
  trace(): RouteTrace | null;
  /** The entry the order put first (undefined before failover ran). */
  first(): R | undefined;
}

export interface RouteOptions<R> {
  /** Prompt-cache affinity: the entry that holds this prefix goes first when admitted. */
  prefer?: R | null;
  /** Whose request this is (the organisation): a circuit opens only on failures of several callers. */
  caller?: string;
  /** A non-streamed generation: its timeout is the caller's doing, not counted (provoked.ts). */
  wholeAnswer?: boolean;
}

export function trackRoute<R extends Routable>(health: Health, opts: RouteOptions<R> = {}): TrackedRoute<R> {
  let all: readonly R[] = [];
  let tried: readonly R[] = [];
  let skipped: Skip<R>[] = [];
  // Per entry, in the order first attempted (a model has a handful: arrays beat maps here).
  const seenEntries: R[] = [];
  const seen: Seen[] = [];
  let probe: R | null = null;
  return {
    hooks: {
      order(entries) {
        all = entries;
        const o = health.order(entries, opts.prefer);
        skipped = o.skipped;
        tried = o.entries;
        if (o.entries.length && health.isHalfOpen(o.entries[0]!)) probe = o.entries[0]!;
        return o.entries;
      },
      onOutcome(r: AttemptReport<R>) {
        health.record(r.entry, healthFault(r, opts.wholeAnswer === true), r.failure, opts.caller);
        let i = seenEntries.indexOf(r.entry);
        if (i < 0) {
          i = seenEntries.push(r.entry) - 1;
          seen.push({ attempts: 0, ok: false });
        }
        const s = seen[i]!;
        s.attempts++;
        s.ok = r.ok;
        s.failure = r.failure;
        s.fault = r.fault;
      },
      unavailable(entries) {
        return allOpen(health, entries);
      },
    },
    first() {
      return tried[0];
    },
    trace() {
      if (all.length <= 1 && skipped.length === 0 && seen.every((s) => s.attempts <= 1)) return null;
      const order = tried.length === all.length ? tried : [...tried, ...all.filter((e) => !tried.includes(e))];
      return order.map((e) => {
        const base = { upstream: e.upstream.id, priority: tierOf(e), weight: weightOf(e) };
        const skip = skipped.find((x) => x.entry === e);
        if (skip) return { ...base, result: "skipped" as const, reason: skip.reason };
        const i = seenEntries.indexOf(e);
        if (i < 0) return { ...base, result: "untried" as const };
        const s = seen[i]!;
        const pr = probe === e ? { probe: true } : {};
        const f = s.failure?.error;
        const why = f ? { reason: `${f.status} ${f.code}` } : {};
        // The caller's own 4xx: the entry answered (it served the request, with an error).
        if (s.ok || s.fault === "request") return { ...base, result: "served" as const, attempts: s.attempts, ...why, ...pr };
        return { ...base, result: "failed" as const, attempts: s.attempts, ...why, ...pr };
      });
    },
  };
}

/** Every entry of the model is skipped: fail fast with 503 and when to come back, instead of calling an upstream we know is down. */
export function allOpen(health: Health, entries: readonly Routable[]): UpstreamFailure {
  const s = health.retryAfterS(entries);
  const err = errors.upstream(`Every upstream of this model is failing (circuit open); retry in ${s} s.`, 503);
  return { ok: false, retryable: false, retryAfterMs: s * 1000, error: { ...err, headers: { "retry-after": String(s) } } };
}
