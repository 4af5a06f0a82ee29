/**
 * When a circuit opens and for how long (docs/configuration.md, "Upstream health and routing"). Defaults: judged over the
 * last 60 s once an entry has had 10 attempts in it, open at 50 % failures from at least 3
 * callers (organisations; decision 0035), first cool-down 30 s, doubled after each failed probe
 * up to 16×.
 */
import { env } from "../../env";
import type { HealthPolicy } from "../../views";
export type { HealthPolicy };

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
