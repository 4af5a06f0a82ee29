/**
 * The circuit of one upstream entry (model × upstream): closed while its error rate over the
 * window stays under the threshold; open past it (the entry is skipped); half-open once the
 * cool-down has run (one real request at a time is let through as a probe); closed again by a
 * success, or open again with a doubled cool-down by a failure. Time is passed in, so the
 * machine is pure and tests drive it without waiting.
 */
import type { HealthPolicy } from "./policy";
import { SlidingWindow } from "./window";
import type { CircuitState, ErrorSample } from "../../views";
export type { CircuitState, ErrorSample };

export interface Transition {
  key: string;
  from: CircuitState;
  to: "open" | "closed";
  /** Epoch ms. */
  at: number;
  reason: string;
  /** Failed share of the window when it changed (0–1). */
  errorRate: number;
  attempts: number;
  /** When it opened: the end of its cool-down (epoch ms). */
  openUntil?: number;
  lastError?: ErrorSample;
}

export type Admission = { allow: true; probe: boolean } | { allow: false; reason: "circuit open" | "half-open, probe in flight" };

const LAST_ERRORS = 5;

export class Circuit {
  readonly window: SlidingWindow;
  private stateValue: "closed" | "open" = "closed";
  openedAt: number | null = null;
  openUntil = 0;
  reason: string | null = null;
  cooldownMs: number;
  private probeUntil = 0;
  /**
   * With several instances (shared-store.ts), the one probe of a half-open entry is sent by the
   * instance that claimed this circuit's probe right in Redis; the others wait for its outcome.
   */
  probeRightUntil = 0;
  /** A request found it half-open without the probe right here: the shared store asks for it. */
  wantsProbeRight = false;
  readonly lastErrors: ErrorSample[] = [];
  /** Epoch ms of the last change; 0 = never changed (a shared change of any age applies). */
  changedAt = 0;
  /** Shared counts of slots before this one predate the last close and are ignored (shared-store.ts). */
  countFrom = -Infinity;

  constructor(
    readonly key: string,
    private readonly policy: HealthPolicy,
  ) {
    this.window = new SlidingWindow(policy.windowMs, 10, policy.minCallers);
    this.cooldownMs = policy.cooldownMs;
  }

  state(now: number): CircuitState {
    if (this.stateValue === "closed") return "closed";
    return now >= this.openUntil ? "half_open" : "open";
  }

  /**
   * May a request try this entry now? A half-open entry takes one probe at a time (`take` claims
   * the slot); with `needGrant` (instances share state), only if this instance holds the probe right.
   */
  admit(now: number, take: boolean, needGrant = false): Admission {
    const s = this.state(now);
    if (s === "closed") return { allow: true, probe: false };
    if (s === "open") return { allow: false, reason: "circuit open" };
    if (now < this.probeUntil) return { allow: false, reason: "half-open, probe in flight" };
    if (needGrant && now >= this.probeRightUntil) {
      this.wantsProbeRight = true;
      return { allow: false, reason: "half-open, probe in flight" };
    }
    if (take) this.probeUntil = now + this.policy.probeLeaseMs;
    return { allow: true, probe: true };
  }

  errorRate(now: number): { rate: number; attempts: number } {
    const c = this.window.counts(now);
    const attempts = c.ok + c.failed;
    return { rate: attempts ? c.failed / attempts : 0, attempts };
  }

  /**
   * One attempt's outcome, and whose it was; a transition when this one changed the state.
   * `null` result = not counted (the client left): frees the probe slot only.
   */
  record(now: number, ok: boolean | null, error?: ErrorSample, caller?: string): Transition | null {
    const before = this.state(now);
    if (before === "half_open") this.probeUntil = 0;
    if (ok === null) return null;
    this.window.add(now, ok ? 1 : 0, ok ? 0 : 1, caller);
    if (error) {
      this.lastErrors.unshift(error);
      if (this.lastErrors.length > LAST_ERRORS) this.lastErrors.length = LAST_ERRORS;
    }
    if (before === "half_open") {
      if (ok) return this.close(now, "probe succeeded");
      this.cooldownMs = Math.min(this.cooldownMs * 2, this.policy.maxCooldownMs);
      return this.open(now, `probe failed${error ? `: ${describe(error)}` : ""}`, before);
    }
    if (before !== "closed" || ok || this.policy.errorRate <= 0) return null;
    const { rate, attempts } = this.errorRate(now);
    if (attempts < this.policy.minRequests || rate < this.policy.errorRate) return null;
    const callers = Math.min(this.policy.minCallers, this.policy.possibleCallers ?? Infinity);
    const several = callers > 1;
    if (several && this.window.failingCallers(now) < callers) return null;
    const failed = Math.round(rate * attempts);
    const from = several ? ` from at least ${callers} callers` : "";
    return this.open(
      now,
      `${failed} of ${attempts} attempts failed in the last ${Math.round(this.policy.windowMs / 1000)} s (${Math.round(rate * 100)} %)${from}${error ? `; last: ${describe(error)}` : ""}`,
      before,
    );
  }

  /** Applies a change another instance made (shared store): no transition of our own to announce. */
  apply(t: { to: "open" | "closed"; at: number; reason: string; openUntil?: number }): void {
    if (t.to === "open") {
      this.stateValue = "open";
      this.openedAt = t.at;
      this.openUntil = t.openUntil ?? t.at + this.cooldownMs;
      this.reason = t.reason;
      this.probeRightUntil = 0;
      this.wantsProbeRight = false;
    } else this.reset(t.at, t.reason);
    this.changedAt = t.at;
  }

  private open(now: number, reason: string, from: CircuitState): Transition {
    const { rate, attempts } = this.errorRate(now);
    this.stateValue = "open";
    this.openedAt = now;
    this.openUntil = now + this.cooldownMs;
    this.reason = reason;
    this.changedAt = now;
    this.probeRightUntil = 0;
    this.wantsProbeRight = false;
    return { key: this.key, from, to: "open", at: now, reason, errorRate: rate, attempts, openUntil: this.openUntil, lastError: this.lastErrors[0] };
  }

  private close(now: number, reason: string): Transition {
    const { rate, attempts } = this.errorRate(now);
    this.reset(now, reason);
    return { key: this.key, from: "half_open", to: "closed", at: now, reason, errorRate: rate, attempts };
  }

  private reset(now: number, reason: string) {
    this.stateValue = "closed";
    this.openedAt = null;
    this.openUntil = 0;
    this.reason = reason;
    this.cooldownMs = this.policy.cooldownMs;
    this.probeUntil = 0;
    this.probeRightUntil = 0;
    this.wantsProbeRight = false;
    // A fresh start: the failures that opened it must not open it again at once.
    this.window.clear();
    this.countFrom = this.window.slotOf(now) + 1;
    this.changedAt = now;
  }
}

function describe(e: ErrorSample): string {
  return `${e.status} ${e.code}`;
}
