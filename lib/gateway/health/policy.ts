/**
 * When a circuit opens and for how long (docs/configuration.md, "Upstream health and routing"). Defaults: judged over the
 * last 60 s once an entry has had 10 attempts in it, open at 50 % failures from at least 3
 * callers (organisations; decision 0035), first cool-down 30 s, doubled after each failed probe
 * up to 16×.
 */
import { env } from "../../env";

export interface HealthPolicy {
  windowMs: number;
  /** Attempts in the window before its error rate is judged (a single failure never opens a circuit). */
  minRequests: number;
  /** Failed share (0–1] at or above which the circuit opens; 0 = circuits off (routing still by tier and weight). */
  errorRate: number;
  /**
   * Distinct callers (organisations) whose attempts failed in the window before it opens: one
   * caller's requests (a poison input, a long generation) must not close an upstream for everyone.
   */
  minCallers: number;
  /** Open → half-open after this; doubled after each failed probe, up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
  /** A half-open entry's probe slot is freed by the probe's outcome, or after this. */
  probeLeaseMs: number;
}

export const DEFAULT_POLICY: HealthPolicy = {
  windowMs: 60_000,
  minRequests: 10,
  errorRate: 0.5,
  minCallers: 3,
  cooldownMs: 30_000,
  maxCooldownMs: 16 * 30_000,
  probeLeaseMs: 10_000,
};

export function policyFromEnv(): HealthPolicy {
  const e = env();
  const cooldownMs = e.UPSTREAM_HEALTH_COOLDOWN_S * 1000;
  return {
    windowMs: Math.max(1, e.UPSTREAM_HEALTH_WINDOW_S) * 1000,
    minRequests: Math.max(1, e.UPSTREAM_HEALTH_MIN_REQUESTS),
    errorRate: Math.min(100, e.UPSTREAM_HEALTH_ERROR_PERCENT) / 100,
    minCallers: Math.max(1, e.UPSTREAM_HEALTH_MIN_CALLERS),
    cooldownMs,
    maxCooldownMs: 16 * cooldownMs,
    probeLeaseMs: DEFAULT_POLICY.probeLeaseMs,
  };
}
