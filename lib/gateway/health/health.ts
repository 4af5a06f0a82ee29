/**
 * Upstream health of this process: one circuit per entry (model × upstream), the order a
 * request tries a model's entries in, and what each attempt taught us. Everything here runs on
 * the request path and touches memory only; sharing with other instances (shared-store.ts)
 * reads `pending` and calls `merge`/`apply` off the request path.
 */
import type { UpstreamFailure } from "../errors";
import { Circuit, type ErrorSample, type Transition } from "./circuit";
import type { HealthPolicy } from "./policy";
import { entryKey, splitKey, tierOf, weightedOrder, type Routable } from "./routing";
import type { EntryHealth } from "../../views";
export type { EntryHealth };

export interface Skip<R> {
  entry: R;
  reason: string;
}

export interface Ordered<R> {
  entries: R[];
  skipped: Skip<R>[];
}

export type AttemptFault = "none" | "upstream" | "request" | "client";

type Listener = (t: Transition, origin: "local" | "shared") => void;

/** Counts not yet pushed to the shared store: key → slot → [ok, failed]. */
export type PendingCounts = Map<string, Map<number, [number, number]>>;
/** Failing callers not yet pushed: key → slot → callers (a few per slot: the window counts up to minCallers). */
export type PendingCallers = Map<string, Map<number, Set<string>>>;

export class Health {
  readonly circuits = new Map<string, Circuit>();
  private readonly listeners = new Set<Listener>();
  private readonly ids = new Map<string, { modelId: string; upstreamId: string }>();
  /** Set when a shared store drains what this instance recorded (else nothing is kept for it). */
  sharing = false;
  /**
   * Set by the shared store while its rounds succeed: a half-open probe then needs this
   * instance's probe right. Unset when Redis fails, so each instance probes alone rather than none.
   */
  probesClaimed = false;
  /** Called when a request wanted a probe right this instance lacks (the shared store runs a round). */
  onProbeWanted: (() => void) | null = null;
  pending: PendingCounts = new Map();
  pendingCallers: PendingCallers = new Map();
  pendingErrors: { key: string; sample: ErrorSample }[] = [];

  constructor(
    readonly policy: HealthPolicy,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  private failureListener: ((key: string, code: string) => void) | null = null;

  /** Hears every upstream fault (the /metrics error counter). */
  onFailure(fn: (key: string, code: string) => void): void {
    this.failureListener = fn;
  }

  onTransition(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  circuit(key: string, ids?: { modelId: string; upstreamId: string }): Circuit {
    let c = this.circuits.get(key);
    if (!c) {
      c = new Circuit(key, this.policy);
      this.circuits.set(key, c);
      if (ids) this.ids.set(key, ids);
    }
    return c;
  }

  /**
   * The entries to try, in order: tiers and weights (routing.ts), open circuits left out, a
   * half-open entry first in its tier (its probe is this request). `prefer` (prompt-cache
   * affinity: a cache hit is worth more than the configured order) goes first when admitted.
   */
  order<R extends Routable>(entries: readonly R[], prefer?: R | null): Ordered<R> {
    const now = this.now();
    const ordered = weightedOrder(entries, this.random);
    if (this.policy.errorRate <= 0) return { entries: promote(ordered, prefer), skipped: [] };
    const out: R[] = [];
    const skipped: Skip<R>[] = [];
    let probeTaken = false;
    for (const e of ordered) {
      const c = this.circuits.get(entryKey(e));
      if (!c) {
        out.push(e);
        continue;
      }
      // Only the entry that will be tried first takes the probe slot; one further down may never be reached.
      const adm = c.admit(now, out.length === 0 || (!probeTaken && tierOf(out[0]!) === tierOf(e)), this.probesClaimed);
      if (!adm.allow) {
        skipped.push({ entry: e, reason: adm.reason });
        if (c.wantsProbeRight) this.onProbeWanted?.();
      }
      else if (adm.probe && !probeTaken && (out.length === 0 || tierOf(out[0]!) === tierOf(e))) {
        probeTaken = true;
        // Let the probe go first in its tier.
        let i = out.length;
        while (i > 0 && tierOf(out[i - 1]!) === tierOf(e)) i--;
        out.splice(i, 0, e);
      } else out.push(e);
    }
    return { entries: probeTaken ? out : promote(out, prefer), skipped };
  }

  /**
   * One attempt's outcome and its caller (the organisation). Only `upstream` faults count against
   * the entry; a caller's 4xx proves it answers. The circuit opens only on failures of several callers.
   */
  record(entry: { modelId: string; upstream: { id: string } }, fault: AttemptFault, failure?: UpstreamFailure, caller?: string): Transition | null {
    const key = entryKey(entry);
    const now = this.now();
    const c = this.circuit(key, { modelId: entry.modelId, upstreamId: entry.upstream.id });
    if (fault === "client") {
      c.record(now, null);
      return null;
    }
    const ok = fault !== "upstream";
    const sample = !ok && failure ? { at: now, status: failure.error.status, code: failure.error.code, message: failure.error.message.slice(0, 300) } : undefined;
    const t = c.record(now, ok, sample, caller);
    if (sample && this.failureListener) this.failureListener(key, sample.code);
    if (this.sharing) {
      this.addPending(key, c.window.slotOf(now), ok);
      if (!ok && caller) this.addPendingCaller(key, c.window.slotOf(now), caller);
      if (sample && this.pendingErrors.length < 100) this.pendingErrors.push({ key, sample });
    }
    if (t) this.emit(t, "local");
    return t;
  }

  isHalfOpen(entry: { modelId: string; upstream: { id: string } }): boolean {
    return this.circuits.get(entryKey(entry))?.state(this.now()) === "half_open";
  }

  /** Seconds until the first of these entries leaves its cool-down (for Retry-After when all are open). */
  retryAfterS(entries: readonly { modelId: string; upstream: { id: string } }[]): number {
    const now = this.now();
    let soonest = Infinity;
    for (const e of entries) {
      const c = this.circuits.get(entryKey(e));
      if (c) soonest = Math.min(soonest, Math.max(0, c.openUntil - now));
    }
    return Number.isFinite(soonest) ? Math.max(1, Math.ceil(soonest / 1000)) : 1;
  }

  /** A change made by another instance. */
  apply(key: string, t: { to: "open" | "closed"; at: number; reason: string; openUntil?: number }): void {
    const c = this.circuit(key);
    const before = c.state(this.now());
    // Older than what this instance last did (a claim still in flight), or already so.
    if (t.at < c.changedAt || (t.to === "closed" && before === "closed") || (t.to === "open" && before !== "closed" && c.openedAt === t.at)) return;
    c.apply(t);
    this.emit({ key, from: before, to: t.to, at: t.at, reason: t.reason, errorRate: 0, attempts: 0, openUntil: t.openUntil }, "shared");
  }

  snapshot(): EntryHealth[] {
    const now = this.now();
    return [...this.circuits.values()].map((c) => {
      const counts = c.window.counts(now);
      const attempts = counts.ok + counts.failed;
      const ids = this.ids.get(c.key) ?? splitKey(c.key);
      const state = c.state(now);
      return {
        key: c.key,
        ...ids,
        state,
        errorRate: attempts ? counts.failed / attempts : 0,
        attempts,
        failed: counts.failed,
        openedAt: c.openedAt,
        openUntil: state === "closed" ? null : c.openUntil,
        reason: c.reason,
        changedAt: c.changedAt || null,
        lastErrors: c.lastErrors.slice(),
      };
    });
  }

  /** Takes the counts, failing callers and errors recorded since the last call (for the shared store). */
  drainPending(): { counts: PendingCounts; callers: PendingCallers; errors: { key: string; sample: ErrorSample }[] } {
    const out = { counts: this.pending, callers: this.pendingCallers, errors: this.pendingErrors };
    this.pending = new Map();
    this.pendingCallers = new Map();
    this.pendingErrors = [];
    return out;
  }

  /** Puts back counts a failed push took (they are pushed with the next round). */
  restorePending(counts: PendingCounts, errors: { key: string; sample: ErrorSample }[], callers: PendingCallers = new Map()): void {
    for (const [key, slots] of callers) for (const [slot, set] of slots) for (const c of set) this.addPendingCaller(key, slot, c);
    for (const [key, slots] of counts)
      for (const [slot, [ok, failed]] of slots) {
        let m = this.pending.get(key);
        if (!m) this.pending.set(key, (m = new Map()));
        const v = m.get(slot) ?? [0, 0];
        m.set(slot, [v[0] + ok, v[1] + failed]);
      }
    this.pendingErrors = [...errors, ...this.pendingErrors].slice(-100);
  }

  private addPendingCaller(key: string, slot: number, caller: string) {
    let m = this.pendingCallers.get(key);
    if (!m) this.pendingCallers.set(key, (m = new Map()));
    const set = m.get(slot) ?? new Set<string>();
    if (set.size < this.policy.minCallers) set.add(caller);
    m.set(slot, set);
  }

  private addPending(key: string, slot: number, ok: boolean) {
    let m = this.pending.get(key);
    if (!m) this.pending.set(key, (m = new Map()));
    const v = m.get(slot);
    if (v) v[ok ? 0 : 1]++;
    else m.set(slot, ok ? [1, 0] : [0, 1]);
  }

  private emit(t: Transition, origin: "local" | "shared") {
    for (const l of this.listeners) {
      try {
        l(t, origin);
      } catch {
        // A listener (metrics, webhook, store) must never break the request that caused the change.
      }
    }
  }
}

function promote<R extends Routable>(list: R[], prefer?: R | null): R[] {
  if (!prefer || list[0] === prefer) return list;
  const i = list.indexOf(prefer);
  if (i < 0) return list;
  return [prefer, ...list.slice(0, i), ...list.slice(i + 1)];
}
