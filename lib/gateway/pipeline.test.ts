import { describe, expect, it } from "vitest";
import { errors } from "./errors";
import { admit } from "./pipeline";
import type { AdmitResult } from "./token-limits";

/** A token limiter that records what it was asked and what came back. */
function limiter(ok = true) {
  const calls = { admitted: [] as number[], released: [] as number[] };
  const admitTokens = async (tokens: number): Promise<AdmitResult> => {
    calls.admitted.push(tokens);
    if (!ok) return { ok: false, error: { ...errors.invalidRequest("slow down"), status: 429, code: "rate_limit_exceeded" } };
    return { ok: true, value: { headers: { "x-ratelimit-remaining-tokens": "7" }, release: (n) => void calls.released.push(n) } };
  };
  return { calls, admitTokens };
}

describe("admit: the one admission step", () => {
  it("takes tokens, then money; release gives the tokens back once, with what was used", async () => {
    const { calls, admitTokens } = limiter();
    const a = await admit({ tokens: 100, admitTokens, reserve: async () => ({ ok: true, hold: "h1" }) });
    expect(a.ok).toBe(true);
    if (!a.ok) return;
    expect(a.value.hold).toBe("h1");
    expect(a.value.headers["x-ratelimit-remaining-tokens"]).toBe("7");
    a.value.release(42);
    a.value.release(99);
    expect(calls).toEqual({ admitted: [100], released: [42] });
  });

  it("a money refusal gives the token reservation back and says how much was available", async () => {
    const { calls, admitTokens } = limiter();
    const a = await admit({ tokens: 10, admitTokens, reserve: async () => ({ ok: false, reason: "insufficient_balance", availableMicroUsd: 5 }) });
    expect(a).toMatchObject({ ok: false, stage: "money", availableMicroUsd: 5 });
    expect(calls.released).toEqual([0]);
  });

  it("a token refusal holds no money", async () => {
    const { admitTokens } = limiter(false);
    let reserved = 0;
    const a = await admit({ tokens: 10, admitTokens, reserve: async () => (reserved++, { ok: true, hold: "h" }) });
    expect(a).toMatchObject({ ok: false, stage: "tokens", error: { status: 429 } });
    expect(reserved).toBe(0);
  });

  it("without limits, only the money", async () => {
    const a = await admit({ tokens: 10, reserve: async () => ({ ok: true, hold: 1 }) });
    expect(a.ok && a.value.headers).toEqual({});
  });
});
