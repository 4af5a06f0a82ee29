/**
 * Upstream health for the process (docs/configuration.md, "Upstream health and routing"): one `Health`, the
 * failover hooks every capability gets, the per-request route with its trace, the shared
 * store (REDIS_URL), /metrics, and the announcement of each circuit change.
 *
 * Handlers: `const route = routeFor(health(), { prefer })`, pass `route.hooks` to failover(),
 * put `route.trace()` on the request-log row. A capability that passes no hooks still gets
 * health through the installed ones (no trace).
 */
import { and, gt, isNull, or, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { apiKeys } from "../../../db/schema";
import { env } from "../../env";
import { logger } from "../../logger";
import { metrics } from "../../metrics";
import { processSingleton } from "../../process-singleton";
import { sharedRedis } from "../../redis";
import { installFailoverHooks } from "../upstreams/failover";
import { announce } from "./announce";
import type { Transition } from "./circuit";
import { Health } from "./health";
import { policyFromEnv } from "./policy";
import { splitKey, type Routable } from "./routing";
import { SharedHealth } from "./shared-store";
import { allOpen, trackRoute } from "./trace";

export { trackRoute as routeFor } from "./trace";
export type { RouteTrace } from "./trace";
export type { EntryHealth } from "./health";

const state = processSingleton("gateway.upstreamHealth", () => ({
  health: new Health(policyFromEnv()),
  shared: null as SharedHealth | null,
  started: undefined as Promise<void> | undefined,
  /** When failures last counted the organisations that could call (countPossibleCallers). */
  callersCountedAt: 0,
}));

export function health(): Health {
  return state().health;
}

export function sharedHealth(): SharedHealth | null {
  return state().shared;
}

/** Once per process, at start: hooks, metrics, the shared store. Idempotent. */
export function startUpstreamHealth(): Promise<void> {
  const s = state();
  s.started ??= (async () => {
    const h = s.health;
    installFailoverHooks<Routable>({
      order: (entries) => h.order(entries).entries,
      onOutcome: (r) => h.record(r.entry, r.fault, r.failure),
      unavailable: (entries) => allOpen(h, entries),
    });
    const redis = env().REDIS_URL ? await sharedRedis() : null;
    if (redis) {
      s.shared = new SharedHealth(redis, h);
      h.sharing = true;
      s.shared.start();
    }
    h.onTransition((t, origin) => {
      const { modelId, upstreamId } = splitKey(t.key);
      if (origin === "local") metrics().upstreamTransitions.inc({ model: modelId, upstream: upstreamId, to: t.to });
      if (origin === "local") void confirmAndAnnounce(t);
    });
    h.onFailure((key, code) => {
      metrics().upstreamErrors.inc({ upstream: splitKey(key).upstreamId, kind: code });
      countPossibleCallers(h);
    });
    metrics().registerUpstreamHealth(() => h.snapshot());
  })();
  return s.started;
}

/** How often failures may recount the organisations that could call (a query only while upstreams fail). */
const CALLERS_RECOUNT_MS = 60_000;

/**
 * The caller minimum of decision 0035 is for gateways with many tenants; one team (a single
 * organisation holding live keys) would otherwise never open a circuit. Until the first count
 * arrives the configured minimum holds, so a failure never opens more than it used to.
 */
function countPossibleCallers(h: Health): void {
  const s = state();
  const now = Date.now();
  if (h.policy.minCallers <= 1 || now - s.callersCountedAt < CALLERS_RECOUNT_MS) return;
  s.callersCountedAt = now;
  void (async () => {
    const [row] = await (await getDb())
      .select({ n: sql<number>`count(distinct ${apiKeys.accountId})::int` })
      .from(apiKeys)
      .where(and(isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, new Date()))));
    h.policy.possibleCallers = Math.max(1, Number(row?.n ?? 0));
  })().catch((err) => logger().warn({ err }, "upstream health: could not count the organisations holding keys"));
}

async function confirmAndAnnounce(t: Transition): Promise<void> {
  try {
    const shared = state().shared;
    if (shared && !(await shared.claim(t))) return;
    // A failed probe only extends the cool-down: the operator already heard it opened.
    if (t.from === "half_open" && t.to === "open") return;
    await announce(await getDb(), t);
  } catch (err) {
    logger().error({ err, entry: t.key }, "upstream health: could not record or announce a circuit change");
  }
}
