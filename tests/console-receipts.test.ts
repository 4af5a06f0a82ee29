/**
 * Receipts and statements through the real server: a card top-up's receipt is Stripe's (302 to
 * the fake Stripe API's receipt_url) or, without one, a generated PDF with the billing details;
 * every other credit gets a PDF; another account's receipt is a 404; the monthly statement
 * (CSV, PDF) matches the ledger and splits spend by model.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session, signUp } from "./console-helpers";
import { startFakeStripe, type FakeStripe } from "./fakes/stripe-api";
import { adminOk, createKey } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

const SECRET = "whsec_receipts_test";
let server: TestServer;
let fake: FakeStripe;
const hook = { url: "", secret: SECRET };

beforeAll(async () => {
  fake = await startFakeStripe({ webhook: hook });
  server = await startTestServer({ env: { STRIPE_SECRET_KEY: "sk_test_receipts", STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: fake.url } });
  hook.url = `${server.url}/api/stripe/webhook`;
  await signUp(server); // the admin
}, 180_000);

afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});

async function topUp(s: Session, cents: number, receipt = true) {
  const r = await s.json("/api/console/billing/checkout", { method: "POST", body: { amountCents: cents } });
  fake.pay(r.body.id, { receipt });
  const delivered = await fake.deliver(fake.event("checkout.session.completed", fake.sessions.get(r.body.id)!));
  expect(delivered.status).toBe(200);
  return r.body.id as string;
}

const month = () => new Date().toISOString().slice(0, 7);

describe("receipts", () => {
  it("a card top-up links to Stripe's receipt; without one, and on request, it is our PDF with the billing details", async () => {
    const s = await signUp(server);
    expect((await s.json("/api/console/billing/details", { method: "PUT", body: { name: "Acme Widgets Ltd", address: "1 Main Street\nSpringfield", taxId: "GB123456789", email: "" } })).status).toBe(200);
    await topUp(s, 2_500);
    await topUp(s, 1_000, false);
    const list = await s.json("/api/console/billing/receipts");
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(2);
    const [noReceipt, withReceipt] = list.body.items;
    expect(withReceipt).toMatchObject({ kind: "topup", amountMicroUsd: 25_000_000, source: "stripe" });
    expect(withReceipt.number).toMatch(/^R-\d{6,}$/);

    const redirect = await s.fetch(withReceipt.url);
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get("location")!;
    expect(location).toMatch(new RegExp(`^${fake.url}/receipts/ch_`));
    expect(await (await fetch(location)).text()).toContain("Amount paid $25.00");

    for (const url of [noReceipt.url, withReceipt.pdfUrl]) {
      const pdf = await s.fetch(url);
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get("content-type")).toBe("application/pdf");
      expect(pdf.headers.get("content-disposition")).toMatch(/attachment; filename="receipt-R-\d+\.pdf"/);
      const bytes = Buffer.from(await pdf.arrayBuffer());
      expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
      expect(bytes.length).toBeGreaterThan(1000);
    }
  });

  it("redeemed codes and admin credits have PDF receipts; another account's receipt is a 404", async () => {
    const s = await signUp(server);
    await adminOk(server, "credit", "--email", s.email, "--usd", "3");
    const code = (await server.admin("code", "create", "--usd", "2")).stdout.find((l) => l.startsWith("GW-"))!.split(",")[0]!;
    expect((await s.json("/api/console/billing/redeem", { method: "POST", body: { code } })).status).toBe(200);
    const items = (await s.json("/api/console/billing/receipts")).body.items;
    expect(items.map((i: { kind: string }) => i.kind)).toEqual(["redeem", "admin_credit"]);
    expect(items.every((i: { source: string }) => i.source === "gateway")).toBe(true);
    const pdf = await s.fetch(items[0].url);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    const other = await signUp(server);
    expect((await other.json(items[0].url)).status).toBe(404);
    expect((await other.json("/api/console/billing/receipts/abc")).status).toBe(404);
    // A charge is not a receipt.
    const [charge] = await server.query<{ id: string }>("select id::text from ledger_entries where kind = 'charge' limit 1");
    if (charge) expect((await s.json(`/api/console/billing/receipts/${charge.id}`)).status).toBe(404);
  });
});

describe("monthly statement", () => {
  it("sums the month from the ledger and splits spend by model (CSV and PDF)", async () => {
    const s = await signUp(server);
    await adminOk(server, "credit", "--email", s.email, "--usd", "5");
    await topUp(s, 1_000);
    const key = await createKey(server, s.email);
    for (let i = 0; i < 2; i++) {
      const r = await fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "demo-chat", messages: [{ role: "user", content: `hello ${i}` }] }),
      });
      expect(r.status).toBe(200);
      await r.text();
    }
    // Settlement may commit just after the reply (docs/decisions/0006).
    await new Promise((r) => setTimeout(r, 500));
    const res = await s.fetch(`/api/console/billing/statement?month=${month()}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain(`statement-${month()}.csv`);
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("section,item,requests,input_tokens,output_tokens,amount_usd");
    const cell = (item: string) => Math.round(Number(lines.find((l) => l.startsWith(`summary,${item},`))!.split(",").at(-1)) * 1e6);
    const modelLine = lines.find((l) => l.startsWith("model,demo-chat,"))!;
    expect(modelLine.split(",")[2]).toBe("2");
    const modelCost = Math.round(Number(modelLine.split(",").at(-1)) * 1e6);
    const [acct] = await server.query<{ balance: string }>("select a.balance_micro_usd as balance from accounts a join users u on u.account_id = a.id where u.email = $1", [s.email]);
    expect(cell("opening_balance")).toBe(0);
    expect(cell("card_top_ups")).toBe(10_000_000);
    expect(cell("other_credits")).toBe(5_000_000);
    expect(cell("usage")).toBe(modelCost);
    expect(modelCost).toBeGreaterThan(0);
    expect(cell("closing_balance")).toBe(Number(acct!.balance));
    expect(cell("opening_balance") + cell("card_top_ups") + cell("other_credits") - cell("usage") + cell("adjustments")).toBe(cell("closing_balance"));

    const pdf = await s.fetch(`/api/console/billing/statement?month=${month()}&format=pdf`);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe("%PDF-");

    expect((await s.json("/api/console/billing/statement?month=2999-01&format=csv")).body.error.field).toBe("month");
    expect((await s.json(`/api/console/billing/statement?month=${month()}&format=xml`)).body.error.field).toBe("format");
  });
});

describe("organisation roles", () => {
  it("a member cannot see receipts, statements or redeem; a billing member can, but cannot change the billing details; statements split spend by member", async () => {
    const owner = await signUp(server);
    const other = await signUp(server);
    const [{ account_id: orgId }] = await server.query<{ account_id: string }>("select account_id from users where email = $1", [owner.email]);
    const [{ id: otherId }] = await server.query<{ id: string }>("select id from users where email = $1", [other.email]);
    await adminOk(server, "credit", "--email", owner.email, "--usd", "4");
    await server.query("insert into memberships (account_id, user_id, role) values ($1, $2, 'member')", [orgId, otherId]);
    other.cookies.set("gw-org", orgId!);
    const code = (await server.admin("code", "create", "--usd", "1")).stdout.find((l) => l.startsWith("GW-"))!.split(",")[0]!;
    for (const path of ["/api/console/billing/receipts", `/api/console/billing/statement?month=${month()}&format=csv`, "/api/console/billing/details"]) {
      expect((await other.json(path)).status).toBe(403);
    }
    const denied = await other.json("/api/console/billing/redeem", { method: "POST", body: { code } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toMatch(/role/);

    await server.query("update memberships set role = 'billing' where account_id = $1 and user_id = $2", [orgId, otherId]);
    const list = await other.json("/api/console/billing/receipts");
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect((await other.json("/api/console/billing/details", { method: "PUT", body: { name: "Not mine to change" } })).status).toBe(403);
    expect((await other.json("/api/console/billing/redeem", { method: "POST", body: { code } })).status).toBe(200);
    // A request on a key the owner made in the console: with two members the statement names who spent it.
    const key = (await owner.json("/api/console/keys", { method: "POST", body: { name: "owner-key", allowedModels: [] } })).body.key.key as string;
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-chat", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.status).toBe(200);
    await r.text();
    await new Promise((res) => setTimeout(res, 500));
    const csv = await (await owner.fetch(`/api/console/billing/statement?month=${month()}&format=csv`)).text();
    expect(csv).toContain("summary,other_credits,,,,5.000000");
    expect(csv).toMatch(new RegExp(`\r\nmember,${owner.email.replace(/[.+]/g, "\\$&")},1,,,\\d+\\.\\d{6}\r\n`));
  });
});
