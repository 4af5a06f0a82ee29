import { describe, expect, it } from "vitest";
import { recordSignInFailure, recordSignInSuccess, signInBlockedFor, signUpAttempt } from "./rate-limit";
import { env } from "../env";

// No REDIS_URL here: the memory store (the Redis store is exercised by tests/reliability).
describe("sign-in rate limit", () => {
  it("blocks the sixth attempt for one email and address within a minute; other addresses stay free", async () => {
    const email = `rl-${Math.random()}@example.test`;
    for (let i = 0; i < 5; i++) {
      expect(await signInBlockedFor(email, "10.0.0.1")).toBe(0);
      await recordSignInFailure(email, "10.0.0.1");
    }
    const wait = await signInBlockedFor(email, "10.0.0.1");
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await signInBlockedFor(email, "10.0.0.2")).toBe(0);
  });

  it("limits one email across addresses (credential stuffing from many hosts)", async () => {
    const email = `rl-${Math.random()}@example.test`;
    for (let i = 0; i < 20; i++) await recordSignInFailure(email, `10.1.0.${i}`);
    expect(await signInBlockedFor(email, "10.9.9.9")).toBeGreaterThan(0);
  });

  it("limits one address across emails, without touching other addresses", async () => {
    for (let i = 0; i < 50; i++) await recordSignInFailure(`spray-${i}-${Math.random()}@example.test`, "10.3.0.1");
    expect(await signInBlockedFor("real@example.test", "10.3.0.1")).toBeGreaterThan(0);
    expect(await signInBlockedFor("real@example.test", "10.3.0.2")).toBe(0);
  });

  it("counts IPv6 addresses by /64", async () => {
    for (let i = 0; i < 50; i++) await recordSignInFailure(`v6-${i}-${Math.random()}@example.test`, `2001:db8:1:2::${i.toString(16)}`);
    expect(await signInBlockedFor("someone@example.test", "2001:db8:1:2:ffff::1")).toBeGreaterThan(0);
    expect(await signInBlockedFor("someone@example.test", "2001:db8:1:3::1")).toBe(0);
  });

  it("a success clears the email+address window", async () => {
    const email = `rl-${Math.random()}@example.test`;
    for (let i = 0; i < 5; i++) await recordSignInFailure(email, "10.2.0.1");
    await recordSignInSuccess(email, "10.2.0.1");
    expect(await signInBlockedFor(email, "10.2.0.1")).toBe(0);
  });

  it("allows SIGNUP_LIMIT_PER_HOUR (20) sign-ups per address per hour", async () => {
    expect(env().SIGNUP_LIMIT_PER_HOUR).toBe(20);
    for (let i = 0; i < env().SIGNUP_LIMIT_PER_HOUR; i++) expect(await signUpAttempt("10.4.0.1")).toBe(0);
    expect(await signUpAttempt("10.4.0.1")).toBeGreaterThan(0);
    expect(await signUpAttempt("10.4.0.2")).toBe(0);
  });
});
