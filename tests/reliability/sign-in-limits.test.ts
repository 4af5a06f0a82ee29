/**
 * Sign-in and sign-up limits as an attacker meets them (issue 12, item 6), on two instances
 * sharing PostgreSQL and Redis behind a proxy (TRUST_PROXY=127.0.0.1: the test plays the proxy
 * and appends the client's address to X-Forwarded-For, after whatever the client forged):
 *  - 60 failed sign-ins for random emails from one address, alternating instances and forging
 *    a new first XFF entry each time: at most 50 are evaluated, the rest refused, and a real
 *    user from another address still signs in;
 *  - 25 sign-ups from one address with forged entries: 20 created, the rest 429;
 * and on an instance with no proxy configured, XFF is not believed at all; SIGNUP=closed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

const REDIS_URL = "redis://127.0.0.1:6379/0";
const PASSWORD = "correct horse battery staple";
let a: TestServer;
let b: TestServer;
let direct: TestServer;

// Addresses unique to this run: the Redis database may be shared with other runs.
const run = () => Math.floor(Math.random() * 250) + 1;
const net = `10.${run()}.${run()}`;
const addr = (n: number) => `${net}.${n}`;
const forged = () => `${run()}.${run()}.${run()}.${run()}`;

beforeAll(async () => {
  if (!usesPostgres()) throw new Error("needs PostgreSQL (DATABASE_URL)");
  const env = { REDIS_URL, TRUST_PROXY: "127.0.0.1,::1" };
  a = await startTestServer({ env });
  b = await startTestServer({ env, shareWith: a });
  direct = await startTestServer({ env: { SIGNUP: "closed" } });
});
afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
  await direct?.dispose();
});

/** One credentials sign-in as a browser does it; returns next-auth's error code or null. */
async function signIn(server: TestServer, email: string, password: string, xff?: string, extra: Record<string, string> = {}): Promise<string | null> {
  const headers: Record<string, string> = { ...(xff ? { "x-forwarded-for": xff } : {}), ...extra };
  const csrfRes = await fetch(`${server.url}/api/auth/csrf`, { headers });
  const cookie = csrfRes.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const r = await fetch(`${server.url}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded", origin: new URL(server.env.PUBLIC_BASE_URL!).origin },
    body: new URLSearchParams({ csrfToken, email, password, json: "true", callbackUrl: "/overview" }).toString(),
    redirect: "manual",
  });
  const body = (await r.json().catch(() => ({}))) as { url?: string };
  const error = body.url ? new URL(body.url, server.url).searchParams.get("error") : null;
  const session = r.headers.getSetCookie().some((c) => c.includes("next-auth.session-token"));
  return error ?? (session ? null : "NoSession");
}

function signUp(server: TestServer, email: string, xff?: string): Promise<Response> {
  return fetch(`${server.url}/api/signup`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: new URL(server.env.PUBLIC_BASE_URL!).origin, ...(xff ? { "x-forwarded-for": xff } : {}) },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
}

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;

describe("behind a trusted proxy, on two instances", () => {
  it("limits a spray of random emails from one address, whatever it forges, and not the real user", async () => {
    const realEmail = uniqueEmail("real");
    expect((await signUp(a, realEmail, addr(1))).status).toBe(201);
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < 60; i++) {
      const server = i % 2 ? b : a;
      const code = (await signIn(server, uniqueEmail("spray"), "wrong password", `${forged()}, ${addr(66)}`)) ?? "signed-in";
      outcomes[code] = (outcomes[code] ?? 0) + 1;
    }
    expect(outcomes).toEqual({ CredentialsSignin: 50, RateLimited: 10 });
    // The real user, from their own address, on either instance: not locked out.
    expect(await signIn(a, realEmail, PASSWORD, addr(1))).toBeNull();
    expect(await signIn(b, realEmail, PASSWORD, `${addr(66)}, ${addr(1)}`)).toBeNull();
    // The attacker cannot borrow the real user's address by forging it: the proxy's entry wins.
    expect(await signIn(a, uniqueEmail("spray"), "wrong password", `${addr(1)}, ${addr(66)}`)).toBe("RateLimited");
  });

  it("allows 20 sign-ups an hour per address across instances, whatever it forges", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await signUp(i % 2 ? b : a, uniqueEmail("farm"), `${forged()}, ${addr(77)}`)).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429]);
    expect((await signUp(a, uniqueEmail("other"), addr(78))).status).toBe(201);
  });
});

describe("unknown-key floods (issue 12, item 12)", () => {
  it("refuses an address after 30 unknown keys a minute on any instance, while valid keys keep working", async () => {
    const { key } = await createAccount(a, { usd: 1 });
    const models = (server: TestServer, k: string, from: string) =>
      fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${k}`, "x-forwarded-for": `${forged()}, ${from}` } });
    const flooder = addr(90);
    // The valid key is used (and cached) from the flooding address before the flood.
    expect((await models(a, key, flooder)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const guess = `sk-${Buffer.from(String(Math.random())).toString("base64url").padEnd(43, "A").slice(0, 43)}`;
      const r = await models(i % 2 ? b : a, guess, flooder);
      statuses.push(r.status);
      if (r.status === 429) {
        const body = (await r.json()) as { error: { code: string } };
        expect(body.error.code).toBe("too_many_failed_keys");
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      } else await r.body?.cancel();
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(30);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    // Another address is not affected; the valid key (cached on a) still works from the refused one.
    expect((await models(b, key, addr(91))).status).toBe(200);
    expect((await models(a, key, flooder)).status).toBe(200);
  });
});

describe("with no proxy configured", () => {
  it("believes the socket, not X-Forwarded-For", async () => {
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < 55; i++) {
      const code = (await signIn(direct, uniqueEmail("spray"), "wrong password", forged())) ?? "signed-in";
      outcomes[code] = (outcomes[code] ?? 0) + 1;
    }
    expect(outcomes).toEqual({ CredentialsSignin: 50, RateLimited: 5 });
    // A client-written copy of the internal peer header is not believed either.
    expect(await signIn(direct, uniqueEmail("spray"), "wrong password", undefined, { "x-gateway-peer": "guessed-token 10.9.9.9" })).toBe("RateLimited");
  });

  it("SIGNUP=closed refuses sign-up with a clear message and the page says so", async () => {
    const r = await signUp(direct, uniqueEmail("closed"));
    expect(r.status).toBe(403);
    const body = (await r.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("signup_closed");
    expect(body.error.message).toMatch(/closed.*administrator/i);
    expect(await (await fetch(`${direct.url}/signup`)).text()).toContain("Sign-up is closed on this gateway");
  });
});
