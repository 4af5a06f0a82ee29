import { describe, expect, it } from "vitest";
import { errors, type UpstreamFailure } from "../errors";
import { Health } from "./health";
import { DEFAULT_POLICY, type HealthPolicy } from "./policy";
import { weightedOrder, type Routable } from "./routing";
import { trackRoute } from "./trace";
import { failover } from "../upstreams/failover";

const policy: HealthPolicy = { ...DEFAULT_POLICY, windowMs: 10_000, minRequests: 4, errorRate: 0.5, minCallers: 1, cooldownMs: 1000, maxCooldownMs: 4000, probeLeaseMs: 500 };
const entry = (upstream: string, priority = 0, weight = 1): Routable => ({ modelId: "m", upstream: { id: upstream }, priority, weight });
const fail502: UpstreamFailure = { ok: false, retryable: true, error: errors.upstream("The upstream failed with status 502.") };

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe("circuit", () => {
  it("stays closed below the minimum attempts, opens past the error rate, and says why", () => {
    const c = clock();
    const h = new Health(policy, c.now);
    const a = entry("a");
    for (let i = 0; i < 3; i++) expect(h.record(a, "upstream", fail502)).toBeNull();
    const t = h.record(a, "upstream", fail502);
    expect(t).toMatchObject({ to: "open", from: "closed", attempts: 4, errorRate: 1 });
    expect(t!.reason).toBe("4 of 4 attempts failed in the last 10 s (100 %); last: 502 upstream_error");
    expect(h.order([a]).entries).toEqual([]);
    expect(h.order([a]).skipped).toEqual([{ entry: a, reason: "circuit open" }]);
  });

  it("never counts the caller's 4xx nor a client that left", () => {
    const h = new Health(policy, clock().now);
    const a = entry("a");
    const bad: UpstreamFailure = { ok: false, retryable: false, error: errors.upstream("rejected", 400) };
    for (let i = 0; i < 20; i++) expect(h.record(a, "request", bad)).toBeNull();
    for (let i = 0; i < 20; i++) expect(h.record(a, "client")).toBeNull();
    expect(h.snapshot()[0]).toMatchObject({ state: "closed", failed: 0, attempts: 20 });
  });

  it("stays closed under the threshold when successes dominate", () => {
    const h = new Health(policy, clock().now);
    const a = entry("a");
    for (let i = 0; i < 30; i++) h.record(a, i % 3 === 2 ? "upstream" : "none", i % 3 === 2 ? fail502 : undefined);
    expect(h.snapshot()[0]!.state).toBe("closed");
  });

  it("forgets failures older than the window", () => {
    const c = clock();
    const h = new Health(policy, c.now);
    const a = entry("a");
    for (let i = 0; i < 3; i++) h.record(a, "upstream", fail502);
    c.t += 11_000;
    expect(h.record(a, "upstream", fail502)).toBeNull();
    expect(h.snapshot()[0]).toMatchObject({ state: "closed", attempts: 1 });
  });

  it("half-opens after the cool-down, lets one probe through, closes on its success", () => {
    const c = clock();
    const h = new Health(policy, c.now);
    const a = entry("a");
    for (let i = 0; i < 4; i++) h.record(a, "upstream", fail502);
    c.t += 1000;
    expect(h.snapshot()[0]!.state).toBe("half_open");
    expect(h.order([a]).entries).toEqual([a]); // the probe
    expect(h.order([a]).skipped[0]!.reason).toBe("half-open, probe in flight");
    const t = h.record(a, "none");
    expect(t).toMatchObject({ to: "closed", from: "half_open", reason: "probe succeeded" });
    expect(h.order([a]).entries).toEqual([a]);
    // A fresh window: one more failure does not reopen it.
    expect(h.record(a, "upstream", fail502)).toBeNull();
  });

  it("reopens on a failed probe with a doubled cool-down, up to the maximum", () => {
    const c = clock();
    const h = new Health(policy, c.now);
    const a = entry("a");
    for (let i = 0; i < 4; i++) h.record(a, "upstream", fail502);
    const waits: number[] = [];
    for (let round = 0; round < 4; round++) {
      const cur = h.circuit("m@a");
      c.t = cur.openUntil;
      h.order([a]);
      const t = h.record(a, "upstream", fail502)!;
      expect(t.to).toBe("open");
      expect(t.reason).toBe("probe failed: 502 upstream_error");
      waits.push(t.openUntil! - t.at);
    }
    expect(waits).toEqual([2000, 4000, 4000, 4000]);
  });

  it("frees a probe slot whose request never reported back", () => {
    const c = clock();
    const h = new Health(policy, c.now);
    const a = entry("a");
    for (let i = 0; i < 4; i++) h.record(a, "upstream", fail502);
    c.t += 1000;
    expect(h.order([a]).entries).toEqual([a]);
    expect(h.order([a]).entries).toEqual([]);
    c.t += 500;
    expect(h.order([a]).entries).toEqual([a]);
  });

  it("with the error rate set to 0, never opens", () => {
    const h = new Health({ ...policy, errorRate: 0 }, clock().now);
    const a = entry("a");
    for (let i = 0; i < 50; i++) expect(h.record(a, "upstream", fail502)).toBeNull();
    expect(h.order([a]).entries).toEqual([a]);
  });
});

describe("one caller cannot open a circuit for everyone (decision 0035)", () => {
  const several: HealthPolicy = { ...policy, minCallers: 3 };

  it("stays closed on any number of one caller's failures; opens when a third caller fails too", () => {
    const h = new Health(several, clock().now);
    const a = entry("a");
    for (let i = 0; i < 50; i++) expect(h.record(a, "upstream", fail502, "org-attacker")).toBeNull();
    expect(h.record(a, "upstream", fail502, "org-2")).toBeNull();
    const t = h.record(a, "upstream", fail502, "org-3");
    expect(t).toMatchObject({ to: "open" });
    expect(t!.reason).toContain("from at least 3 callers");
  });

  it("a gateway with fewer organisations holding keys than the minimum needs all of them (one team opens on its own failures)", () => {
    const one = { ...several };
    const h = new Health(one, clock().now);
    const a = entry("a");
    for (let i = 0; i < 10; i++) expect(h.record(a, "upstream", fail502, "org-team")).toBeNull();
    one.possibleCallers = 1; // counted by health/index.ts on a failure
    expect(h.record(a, "upstream", fail502, "org-team")).toMatchObject({ to: "open" });

    const two = new Health({ ...several, possibleCallers: 2 }, clock().now);
    for (let i = 0; i < 20; i++) expect(two.record(a, "upstream", fail502, "org-attacker")).toBeNull();
    expect(two.record(a, "upstream", fail502, "org-victim")?.reason).toContain("from at least 2 callers");
  });

  it("a failure without a caller never opens a circuit that needs several", () => {
    const h = new Health(several, clock().now);
    for (let i = 0; i < 20; i++) expect(h.record(entry("a"), "upstream", fail502)).toBeNull();
  });

  it("counts callers over the window only: old callers age out with their slot", () => {
    const c = clock();
    const h = new Health(several, c.now);
    const a = entry("a");
    h.record(a, "upstream", fail502, "org-1");
    h.record(a, "upstream", fail502, "org-2");
    c.t += 11_000;
    for (let i = 0; i < 10; i++) expect(h.record(a, "upstream", fail502, "org-3")).toBeNull();
    expect(h.record(a, "upstream", fail502, "org-4")).toBeNull();
    expect(h.record(a, "upstream", fail502, "org-5")).toMatchObject({ to: "open" });
  });

  it("a 429 'request too large' and a non-streamed generation's timeout are not the upstream's fault", async () => {
    const h = new Health(policy, clock().now);
    const a = entry("a");
    const tooLarge: UpstreamFailure = { ok: false, retryable: true, error: errors.upstream("The upstream is rate limiting: Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 90000.") };
    const timeout: UpstreamFailure = { ok: false, retryable: true, error: errors.upstreamTimeout() };
    for (let i = 0; i < 10; i++) {
      await failover([a], async () => tooLarge, trackRoute(h, { caller: "org-1" }).hooks);
      await failover([a], async () => timeout, trackRoute(h, { caller: "org-1", wholeAnswer: true }).hooks);
    }
    expect(h.snapshot()[0]).toMatchObject({ state: "closed", failed: 0, attempts: 10 });
    // A streamed request's timeout is the upstream's (its first event comes at once when healthy).
    for (let i = 0; i < 4; i++) await failover([a], async () => timeout, trackRoute(h, { caller: "org-1" }).hooks);
    expect(h.snapshot()[0]).toMatchObject({ failed: 4 });
  });
});

describe("shared changes", () => {
  it("applies another instance's change to an entry it has never seen, and ignores one older than its own", () => {
    const c = clock();
    const h = new Health(policy, c.now);
    const a = entry("a");
    h.record(entry("zz"), "none");
    h.apply("m@a", { to: "open", at: c.t - 5000, reason: "elsewhere", openUntil: c.t + 1000 });
    expect(h.order([a]).skipped[0]!.reason).toBe("circuit open");
    c.t += 1000;
    h.order([a]);
    h.record(a, "none"); // our probe closes it
    h.apply("m@a", { to: "open", at: c.t - 5000, reason: "stale", openUntil: c.t + 1000 });
    expect(h.order([a]).entries).toEqual([a]);
  });
});

describe("routing", () => {
  it("orders by tier, then by weight within a tier (measured over many draws)", () => {
    const a = entry("a", 0, 3);
    const b = entry("b", 0, 1);
    const c = entry("c", 1, 100);
    const firsts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 20_000; i++) {
      const o = weightedOrder([c, b, a]);
      expect(o[2]).toBe(c);
      firsts[o[0]!.upstream.id as "a" | "b"]++;
    }
    expect(firsts.a / 20_000).toBeGreaterThan(0.72);
    expect(firsts.a / 20_000).toBeLessThan(0.78);
  });

  it("keeps the caller's order for equal tiers without weights (weight 0 = standby)", () => {
    const a = entry("a", 0, 0);
    const b = entry("b", 0, 0);
    const c = entry("c", 0, 1);
    expect(weightedOrder([a, b, c]).map((e) => e.upstream.id)).toEqual(["c", "a", "b"]);
  });

  it("skips an open entry, fails over across tiers, and puts a half-open probe first in its tier", () => {
    const c = clock();
    const h = new Health(policy, c.now, () => 0.5);
    const a = entry("a", 0);
    const b = entry("b", 0);
    const d = entry("d", 1);
    for (let i = 0; i < 4; i++) h.record(b, "upstream", fail502);
    expect(h.order([a, b, d]).entries).toEqual([a, d]);
    c.t += 1000;
    expect(h.order([a, b, d]).entries).toEqual([b, a, d]);
  });

  it("puts the preferred entry (prompt-cache affinity) first unless its circuit is open", () => {
    const h = new Health(policy, clock().now, () => 0.5);
    const a = entry("a", 0);
    const b = entry("b", 0);
    const d = entry("d", 1);
    expect(h.order([a, b, d], b).entries).toEqual([b, a, d]);
    expect(h.order([a, b, d], d).entries).toEqual([d, a, b]);
    for (let i = 0; i < 4; i++) h.record(d, "upstream", fail502);
    expect(h.order([a, b, d], d).entries).toEqual([a, b]);
  });
});

describe("with failover()", () => {
  it("records every attempt, traces the route, and fails fast with 503 + Retry-After when every entry is open", async () => {
    const c = clock();
    const h = new Health(policy, c.now, () => 0.5);
    const a = entry("a", 0);
    const b = entry("b", 1);
    const rt = trackRoute(h);
    const r = await failover([a, b], async (e) => (e === a ? fail502 : { ok: true as const, value: "hi" }), { retries: 1, baseDelayMs: 0, maxDelayMs: 0, ...rt.hooks });
    expect(r.ok).toBe(true);
    expect(rt.trace()).toEqual([
      { upstream: "a", priority: 0, weight: 1, result: "failed", attempts: 2, reason: "502 upstream_error" },
      { upstream: "b", priority: 1, weight: 1, result: "served", attempts: 1 },
    ]);
    for (let i = 0; i < 4; i++) h.record(b, "upstream", fail502);
    await failover([a, b], async () => fail502, { retries: 1, baseDelayMs: 0, maxDelayMs: 0, ...trackRoute(h).hooks });
    const rt2 = trackRoute(h);
    const r2 = await failover([a, b], async () => ({ ok: true as const, value: 1 }), { ...rt2.hooks });
    expect(r2.ok).toBe(false);
    if (r2.ok) return;
    expect(r2.attempts).toBe(0);
    expect(r2.error.status).toBe(503);
    expect(r2.error.headers?.["retry-after"]).toBe("1");
    expect(rt2.trace()!.map((t) => t.result)).toEqual(["skipped", "skipped"]);
  });

  it("returns no trace for a single entry served at once", async () => {
    const h = new Health(policy, clock().now);
    const rt = trackRoute(h);
    await failover([entry("a")], async () => ({ ok: true as const, value: 1 }), rt.hooks);
    expect(rt.trace()).toBeNull();
  });
});
