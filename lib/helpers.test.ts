import { describe, expect, it } from "vitest";
import { backoffMs } from "./backoff";
import { processSingleton } from "./process-singleton";
import { sleep } from "./sleep";

describe("backoffMs", () => {
  const b = { baseMs: 100, maxMs: 1000 };
  it("draws below base·2^attempt, capped, and honours Retry-After up to the max", () => {
    expect(backoffMs(0, b, undefined, () => 0.999)).toBe(99);
    expect(backoffMs(3, b, undefined, () => 0.999)).toBe(799);
    expect(backoffMs(10, b, undefined, () => 0.5)).toBe(500);
    expect(backoffMs(0, b, 300, () => 0)).toBe(300);
    expect(backoffMs(0, b, 60_000, () => 0)).toBe(1000);
  });
  it("waits the cap itself without jitter", () => {
    expect(backoffMs(2, { ...b, jitter: false })).toBe(400);
    expect(backoffMs(50, { ...b, jitter: false })).toBe(1000);
  });
});

describe("sleep", () => {
  it("ends early when its signal aborts, and at once when it already has", async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    const p = sleep(10_000, ac.signal);
    ac.abort();
    await p;
    await sleep(10_000, ac.signal);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});

describe("processSingleton", () => {
  it("makes the value once, shared by every getter of the same key", () => {
    let made = 0;
    const a = processSingleton("gateway.test.singleton", () => ({ n: ++made }));
    const b = processSingleton("gateway.test.singleton", () => ({ n: ++made }));
    expect(a()).toBe(b());
    expect(a()).toBe(a());
    expect(made).toBe(1);
  });
  it("tries again after make throws", () => {
    let fail = true;
    const get = processSingleton("gateway.test.throws", () => {
      if (fail) throw new Error("not yet");
      return 1;
    });
    expect(get).toThrow("not yet");
    fail = false;
    expect(get()).toBe(1);
  });
});
