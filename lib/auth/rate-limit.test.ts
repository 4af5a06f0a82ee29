import { describe, expect, it } from "vitest";
import { clientAddress, recordSignInFailure, recordSignInSuccess, signInBlockedFor } from "./rate-limit";

describe("sign-in rate limit", () => {
  it("blocks the sixth attempt for one email and address within a minute, then frees it", () => {
    const t0 = 1_000_000;
    const email = `rl-${Math.random()}@example.test`;
    for (let i = 0; i < 5; i++) {
      expect(signInBlockedFor(email, "10.0.0.1", t0)).toBe(0);
      recordSignInFailure(email, "10.0.0.1", t0);
    }
    expect(signInBlockedFor(email, "10.0.0.1", t0 + 1_000)).toBe(59);
    expect(signInBlockedFor(email, "10.0.0.2", t0 + 1_000)).toBe(0); // another address is not locked out
    expect(signInBlockedFor(email, "10.0.0.1", t0 + 61_000)).toBe(0);
  });

  it("limits one email across addresses (credential stuffing from many hosts)", () => {
    const t0 = 2_000_000;
    const email = `rl-${Math.random()}@example.test`;
    for (let i = 0; i < 20; i++) recordSignInFailure(email, `10.1.0.${i}`, t0);
    expect(signInBlockedFor(email, "10.9.9.9", t0)).toBeGreaterThan(0);
  });

  it("a success clears the email+address window", () => {
    const email = `rl-${Math.random()}@example.test`;
    for (let i = 0; i < 5; i++) recordSignInFailure(email, "10.2.0.1");
    recordSignInSuccess(email, "10.2.0.1");
    expect(signInBlockedFor(email, "10.2.0.1")).toBe(0);
  });

  it("reads the first forwarded address", () => {
    expect(clientAddress(new Headers({ "x-forwarded-for": "1.2.3.4, 10.0.0.1" }))).toBe("1.2.3.4");
    expect(clientAddress({ "x-real-ip": "5.6.7.8" })).toBe("5.6.7.8");
    expect(clientAddress(undefined)).toBe("unknown");
  });
});
