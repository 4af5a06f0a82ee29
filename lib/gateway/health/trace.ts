/**
 * One request's route: the hooks it passes to failover() and, afterwards, the record of which
 * entry served, which failed, and which were skipped and why — the request-log row's
 * `route_trace` (README, "Upstream health and routing").
 */
import type { RouteTraceEntry } from "../../../db/schema";
import { errors, type UpstreamFailure } from "../errors";
import type { AttemptReport, FailoverHooks } from "../upstreams/failover";
import type { Health } from "./health";
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

export function trackRoute<R extends Routable>(health: Health, opts: { prefer?: R | null } = {}): TrackedRoute<R> {
  let all: readonly R[] = [];
  let tried: readonly R[] = [];
  const skipped = new Map<R, string>();
  const seen = new Map<R, Seen>();
  const probes = new Set<R>();
  return {
    hooks: {
      order(entries) {
        all = entries;
        const o = health.order(entries, opts.prefer);
        for (const s of o.skipped) skipped.set(s.entry, s.reason);
        for (const e of o.entries) if (health.isHalfOpen(e)) probes.add(e);
        tried = o.entries;
        return o.entries;
      },
      onOutcome(r: AttemptReport<R>) {
        health.record(r.entry as R, r.fault, r.failure);
        const s = seen.get(r.entry) ?? { attempts: 0, ok: false };
        s.attempts++;
        s.ok = r.ok;
        s.failure = r.failure;
        s.fault = r.fault;
        seen.set(r.entry, s);
      },
      unavailable(entries) {
        return allOpen(health, entries);
      },
    },
    first() {
      return tried[0];
    },
    trace() {
      if (all.length <= 1 && skipped.size === 0 && [...seen.values()].every((s) => s.attempts <= 1)) return null;
      const order = [...tried, ...all.filter((e) => !tried.includes(e))];
      return order.map((e) => {
        const base = { upstream: e.upstream.id, priority: tierOf(e), weight: weightOf(e) };
        const why = skipped.get(e);
        if (why) return { ...base, result: "skipped" as const, reason: why };
        const s = seen.get(e);
        if (!s) return { ...base, result: "untried" as const };
        const probe = probes.has(e) ? { probe: true } : {};
        if (s.ok || s.fault === "request") {
          const f = s.failure?.error;
          return { ...base, result: "served" as const, attempts: s.attempts, ...(f ? { reason: `${f.status} ${f.code}` } : {}), ...probe };
        }
        const f = s.failure?.error;
        return { ...base, result: "failed" as const, attempts: s.attempts, ...(f ? { reason: `${f.status} ${f.code}` } : {}), ...probe };
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
