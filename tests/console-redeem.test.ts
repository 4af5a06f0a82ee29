/**
 * Redeem codes through the real server: an admin makes a batch (console API and CLI) and exports
 * it as CSV; users redeem on Billing's route; refusals say why; failed attempts are limited.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session, signUp } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let admin: Session;
const PASSWORD = "correct horse battery staple";

beforeAll(async () => {
  server = await startTestServer();
  const email = `codes-admin-${Date.now()}@example.test`;
  expect((await server.admin("user", "create", "--email", email, "--password", PASSWORD, "--admin")).exitCode).toBe(0);
  admin = new Session(server, email);
  expect(await admin.signIn(PASSWORD)).toBeNull();
}, 180_000);
afterAll(async () => {
  await server?.dispose();
});

const redeem = (s: Session, code: string) => s.json("/api/console/billing/redeem", { method: "POST", body: { code } });
const balance = async (s: Session) => (await s.json("/api/console/billing")).body.balanceMicroUsd as number;

describe("redeem codes over HTTP", () => {
  it("an admin batch is redeemed once per account; a used code says so; the CSV lists uses", async () => {
    const made = await admin.json("/api/admin/redeem-codes", { method: "POST", body: { amountUsd: "12.50", count: 2, maxRedemptions: 1, note: "launch" } });
    expect(made.status).toBe(200);
    expect(made.body.codes).toHaveLength(2);
    const [a, b] = made.body.codes as string[];
    const alice = await signUp(server);
    const bob = await signUp(server);
    const ok = await redeem(alice, a!.toLowerCase());
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ amountMicroUsd: 12_500_000, message: "12.50 USD added to your balance." });
    expect(await balance(alice)).toBe(12_500_000);
    const again = await redeem(alice, a!);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe("Your account has already redeemed this code.");
    const used = await redeem(bob, a!);
    expect(used.status).toBe(409);
    expect(used.body.error.message).toBe("This code has already been used.");
    expect((await redeem(bob, b!)).status).toBe(200);
    const ledger = await alice.json("/api/console/ledger");
    expect(ledger.body.items[0]).toMatchObject({ kind: "redeem", deltaMicroUsd: 12_500_000 });

    const csv = await admin.fetch(`/api/admin/redeem-codes/${made.body.batch.id}/csv`);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const text = await csv.text();
    expect(text).toContain(`${a},12.500000,1,1,,launch,`);
    const list = await admin.json("/api/admin/redeem-codes");
    expect(list.body.batches.find((x: { id: string }) => x.id === made.body.batch.id)).toMatchObject({ redeemed: 2, creditedMicroUsd: 25_000_000, codeCount: 2 });
  });

  it("refuses expired and unknown codes with a clear message; non-admins cannot make codes", async () => {
    const user = await signUp(server);
    const unknown = await redeem(user, "GW-AAAA-BBBB-CCCC-DDDD");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ field: "code", message: "This code does not exist. Check it for typos." });
    const made = await admin.json("/api/admin/redeem-codes", { method: "POST", body: { amountUsd: "1", count: 1, expiresAt: new Date(Date.now() + 3_600_000).toISOString() } });
    await server.query("update redeem_batches set expires_at = now() - interval '1 day' where id = $1", [made.body.batch.id]);
    const expired = await redeem(user, made.body.codes[0]);
    expect(expired.status).toBe(400);
    expect(expired.body.error.message).toMatch(/^This code expired on \d{4}-\d{2}-\d{2}\.$/);
    expect((await user.json("/api/admin/redeem-codes", { method: "POST", body: { amountUsd: "1" } })).status).toBe(403);
    const bad = await admin.json("/api/admin/redeem-codes", { method: "POST", body: { amountUsd: "0", count: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("amount");
  });

  it("limits failed attempts per account (brute force) with 429 and Retry-After, even for a valid code", async () => {
    const user = await signUp(server);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await redeem(user, `GW-ZZZZ-ZZZZ-ZZZZ-ZZ${String(i).padStart(2, "0")}`)).status);
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
    const made = await admin.json("/api/admin/redeem-codes", { method: "POST", body: { amountUsd: "1", count: 1 } });
    const res = await user.fetch("/api/console/billing/redeem", { method: "POST", body: { code: made.body.codes[0] } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await balance(user)).toBe(0);
  });

  it("the CLI makes a batch as CSV and exports it again; a withdrawn batch is refused", async () => {
    const r = await server.admin("code", "create", "--usd", "3", "--count", "3", "--max-uses", "2", "--note", "cli batch");
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.filter((l) => l.startsWith("GW-"));
    expect(lines).toHaveLength(3);
    const batchId = lines[0]!.split(",").at(-1)!;
    const exp = await server.admin("code", "export", "--batch", batchId);
    expect(exp.stdout.filter((l) => l.startsWith("GW-")).sort()).toEqual([...lines].sort());
    const user = await signUp(server);
    expect((await admin.json(`/api/admin/redeem-codes/${batchId}`, { method: "PATCH", body: { disabled: true } })).status).toBe(200);
    const w = await redeem(user, lines[0]!.split(",")[0]!);
    expect(w.status).toBe(400);
    expect(w.body.error.message).toMatch(/withdrawn/);
    expect((await server.admin("code", "create", "--usd", "-1")).exitCode).not.toBe(0);
  });

  it("a multi-use code is once per person across their organisations unless the admin says per organisation (issue 32, item 8)", async () => {
    const perPerson = await admin.json("/api/admin/redeem-codes", { method: "POST", body: { amountUsd: "2", maxRedemptions: 50 } });
    expect(perPerson.body.batch.oncePerUser).toBe(true);
    const perOrg = await admin.json("/api/admin/redeem-codes", { method: "POST", body: { amountUsd: "3", maxRedemptions: 50, oncePerUser: false } });
    expect(perOrg.body.batch.oncePerUser).toBe(false);
    const cli = await server.admin("code", "create", "--usd", "4", "--max-uses", "50", "--per-organisation");
    expect(cli.exitCode).toBe(0);
    const cliBatch = cli.stdout.find((l) => l.startsWith("GW-"))!.split(",").at(-1)!;
    expect(await server.query("select once_per_user from redeem_batches where id = $1", [cliBatch])).toEqual([{ once_per_user: false }]);

    const u = await signUp(server);
    expect((await redeem(u, perPerson.body.codes[0])).status).toBe(200);
    expect((await redeem(u, perOrg.body.codes[0])).status).toBe(200);
    expect((await u.json("/api/console/orgs", { method: "POST", body: { name: "Second" } })).status).toBe(200); // now active
    const again = await redeem(u, perPerson.body.codes[0]);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe("You have already redeemed this code for another organisation; it works once per person.");
    expect((await redeem(u, perOrg.body.codes[0])).status).toBe(200);
    expect(await balance(u)).toBe(3_000_000);
  });
});
