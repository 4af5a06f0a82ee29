/**
 * Two instances on one Redis: a circuit opened on one is skipped by the other, and when it
 * half-opens only one of them sends the probe; a probe right its holder never used lapses.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errors, type UpstreamFailure } from "../errors";
import { Health } from "./health";
import { DEFAULT_POLICY, type HealthPolicy } from "./policy";
import type { Routable } from "./routing";
import { SharedHealth } from "./shared-store";

const policy: HealthPolicy = { ...DEFAULT_POLICY, windowMs: 10_000, minRequests: 4, errorRate: 0.5, minCallers: 1, cooldownMs: 2000, maxCooldownMs: 8000, probeLeaseMs: 300 };
const a: Routable = { modelId: "m-probe", upstream: { id: "a" }, priority: 0, weight: 1 };
const fail502: UpstreamFailure = { ok: false, retryable: true, error: errors.upstream("The upstream failed with status 502.") };

let redis: Redis;
beforeAll(async () => {
  redis = new Redis("redis://127.0.0.1:6379/9", { maxRetriesPerRequest: 1 });
  await redis.flushdb();
});
afterAll(async () => {
  await redis?.quit();
});

describe("shared health", () => {
  it("a half-open entry is probed by one instance only; the other waits, and takes over a right that lapsed unused", async () => {
    const clock = { t: Date.now() };
    const now = () => clock.t;
    const h1 = new Health(policy, now);
    const h2 = new Health(policy, now);
    const s1 = new SharedHealth(redis, h1, now);
    const s2 = new SharedHealth(redis, h2, now);
    h1.sharing = h2.sharing = true;

    // Instance 1 sees the failures and opens the circuit; instance 2 learns it from Redis.
    let opened = null;
    for (let i = 0; i < 4; i++) opened = h1.record(a, "upstream", fail502) ?? opened;
    expect(opened).toMatchObject({ to: "open" });
    expect(await s1.claim(opened!)).toBe(true);
    await Promise.all([s1.sync(), s2.sync()]);
    expect(h2.order([a]).skipped[0]?.reason).toBe("circuit open");

    // The cool-down has run; both instances get a request for the entry. Neither probes before
    // asking Redis for the right; one gets it, and only that one sends the next request there.
    const openUntil = h1.circuit("m-probe@a").openUntil;
    clock.t = openUntil + 1;
    for (const h of [h1, h2]) expect(h.order([a]).skipped[0]?.reason).toBe("half-open, probe in flight");
    await Promise.all([s1.sync(), s2.sync()]);
    const tried = [h1, h2].map((h) => h.order([a]));
    expect(tried.filter((o) => o.entries.length === 1).length).toBe(1);
    expect(tried.find((o) => o.entries.length === 0)!.skipped[0]?.reason).toBe("half-open, probe in flight");

    // The holder's probe went nowhere (its client left): once its right lapses, the other may probe.
    const [holder, other, otherStore] = tried[0]!.entries.length ? [h1, h2, s2] : [h2, h1, s1];
    holder.record(a, "client");
    await new Promise((r) => setTimeout(r, policy.probeLeaseMs + 1000 + 100));
    clock.t += policy.probeLeaseMs + 1000 + 100;
    expect(other.order([a]).entries).toEqual([]);
    await otherStore.sync();
    expect(other.order([a]).entries).toEqual([a]);
    // A probe that succeeds closes it on both (the change is shared).
    const closed = other.record(a, "none");
    expect(closed).toMatchObject({ to: "closed" });
    expect(await otherStore.claim(closed!)).toBe(true);
    await (other === h1 ? s2 : s1).sync();
    expect(holder.order([a]).entries).toEqual([a]);
  }, 10_000);

  it("counts distinct failing callers over both instances (decision 0035)", async () => {
    const several: HealthPolicy = { ...policy, minCallers: 3 };
    const b: Routable = { modelId: "m-callers", upstream: { id: "b" }, priority: 0, weight: 1 };
    const h1 = new Health(several);
    const h2 = new Health(several);
    const s1 = new SharedHealth(redis, h1);
    const s2 = new SharedHealth(redis, h2);
    h1.sharing = h2.sharing = true;
    for (let i = 0; i < 6; i++) h1.record(b, "upstream", fail502, "org-1");
    h2.record(b, "upstream", fail502, "org-2");
    await s2.sync();
    await s1.sync();
    // Instance 1 now knows of org-2's failure: a third caller's failure opens it there.
    expect(h1.record(b, "upstream", fail502, "org-3")).toMatchObject({ to: "open" });
  });

  it("without a working shared store, each instance probes on its own judgement", () => {
    const clock = { t: Date.now() };
    const h = new Health(policy, () => clock.t);
    for (let i = 0; i < 4; i++) h.record(a, "upstream", fail502);
    clock.t = h.circuit("m-probe@a").openUntil + 1;
    h.probesClaimed = true;
    expect(h.order([a]).entries).toEqual([]);
    h.probesClaimed = false; // what a failed round sets
    expect(h.order([a]).entries).toEqual([a]);
  });
});
