/**
 * The console's Batches API (issue 38): the organisation's batches with their progress and
 * money, scoped like the public API (a member sees only their own; another organisation's id
 * is a 404 on every route), downloads of results and errors in the batch's own dialect, and
 * cancel returning the unspent hold.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { until } from "./support/until";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let owner: Session;
let m1: Session;
let m2: Session;
let stranger: Session;
let orgId: string;
const keys: Record<string, string> = {};
const oa = (k: string) => new OpenAI({ apiKey: k, baseURL: `${server.url}/v1`, maxRetries: 0 });
const jsonl = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
const chatLine = (i: number, text: string, max = 50) => ({ custom_id: `req-${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "demo-chat", messages: [{ role: "user", content: text }], max_tokens: max } });

async function newKey(s: Session): Promise<string> {
  const r = await s.json("/api/console/keys", { method: "POST", body: { name: "k", allowedModels: [] } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.key.key;
}

async function openAIBatch(key: string, lines: unknown[]) {
  const input = await oa(key).files.create({ file: await toFile(Buffer.from(jsonl(lines)), "in.jsonl"), purpose: "batch" });
  return oa(key).batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
}

const listed = async (s: Session) => (await s.json("/api/console/batches")).body.items as { id: string; [k: string]: unknown }[];
const held = async () => Number((await server.query<{ held: string }>("select held_micro_usd as held from accounts where id = $1", [orgId]))[0]!.held);

beforeAll(async () => {
  server = await startTestServer({ env: { DEFAULT_KEY_RPM: "100000", BATCH_CONCURRENCY: "2", BATCH_LINE_LEASE_S: "30" } });
  await signUp(server); // the first user is the gateway admin
  owner = await signUp(server);
  orgId = (await owner.json("/api/console/orgs", { method: "POST", body: { name: "Team" } })).body.org.id;
  await server.query("update accounts set balance_micro_usd = 5000000 where id = $1", [orgId]);
  await server.query("insert into ledger_entries (account_id, delta_micro_usd, balance_after_micro_usd, kind, idempotency_key) values ($1, 5000000, 5000000, 'admin_credit', 'test-credit-batches')", [orgId]);
  for (const [who, s] of [["m1", (m1 = await signUp(server))], ["m2", (m2 = await signUp(server))]] as const) {
    const inv = await owner.json("/api/console/orgs/invites", { method: "POST", body: { email: s.email, role: "member" } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    expect((await s.json("/api/console/join", { method: "POST", body: { token: new URL(inv.body.invite.url).searchParams.get("token") } })).status).toBe(200);
    keys[who] = await newKey(s);
  }
  stranger = await signUp(server);
}, 120_000);
afterAll(async () => {
  await server?.dispose();
});

describe("console batches", () => {
  let done: OpenAI.Batches.Batch;

  it("lists a batch with its progress, cost and hold, to its member and the owner only", async () => {
    const created = await openAIBatch(keys.m1!, [0, 1, 2, 3].map((i) => chatLine(i, i === 2 ? "please [fail]" : `number ${i}`)));
    done = await until(() => oa(keys.m1!).batches.retrieve(created.id), (b) => b.status === "completed");
    expect(done.status).toBe("completed");
    const [row] = (await listed(m1)).filter((b) => b.id === created.id);
    const charged = await server.query<{ sum: string }>("select coalesce(sum(-delta_micro_usd), 0) as sum from ledger_entries where idempotency_key like $1", [`batch:${created.id}:%`]);
    expect(row).toMatchObject({ dialect: "openai", endpoint: "/v1/chat/completions", status: "completed", total: 4, succeeded: 3, failed: 1, running: 0, heldMicroUsd: 0, hasResults: true, hasErrors: true });
    expect(row!.costMicroUsd).toBe(Number(charged[0]!.sum));
    expect(row!.costMicroUsd).toBeGreaterThan(0);
    expect((await listed(owner)).map((b) => b.id)).toContain(created.id);
    expect((await listed(m2)).map((b) => b.id)).not.toContain(created.id);
    expect(await listed(stranger)).toEqual([]);
  });

  it("downloads the results and errors as the API's output and error files", async () => {
    const res = await m1.fetch(`/api/console/batches/${done.id}/download/results`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain(`${done.id}_output.jsonl`);
    const text = await res.text();
    expect(text).toBe(await (await oa(keys.m1!).files.content(done.output_file_id!)).text());
    expect(text.trim().split("\n")).toHaveLength(3);
    const errs = await (await m1.fetch(`/api/console/batches/${done.id}/download/errors`)).text();
    expect(JSON.parse(errs.trim())).toMatchObject({ custom_id: "req-2", response: { status_code: 502 } });
    expect((await m1.fetch(`/api/console/batches/${done.id}/download/other`)).status).toBe(404);
  });

  it("answers 404 for another organisation's (or member's) batch on every route", async () => {
    for (const s of [stranger, m2]) {
      expect((await s.fetch(`/api/console/batches/${done.id}/download/results`)).status).toBe(404);
      expect((await s.fetch(`/api/console/batches/${done.id}/download/errors`)).status).toBe(404);
      expect((await s.json(`/api/console/batches/${done.id}/cancel`, { method: "POST" })).status).toBe(404);
    }
    expect((await owner.fetch(`/api/console/batches/${done.id}/download/results`)).status).toBe(200);
  });

  it("downloads an Anthropic batch's results in Anthropic's shape", async () => {
    const an = new Anthropic({ apiKey: keys.m1!, baseURL: server.url, maxRetries: 0 });
    const b = await an.messages.batches.create({
      requests: [
        { custom_id: "a", params: { model: "demo-chat", max_tokens: 20, messages: [{ role: "user", content: "hi" }] } },
        { custom_id: "b", params: { model: "demo-chat", max_tokens: 20, messages: [{ role: "user", content: "[fail]" }] } },
      ],
    });
    await until(() => an.messages.batches.retrieve(b.id), (x) => x.processing_status === "ended");
    const ok = (await (await m1.fetch(`/api/console/batches/${b.id}/download/results`)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(ok).toEqual([{ custom_id: "a", result: { type: "succeeded", message: expect.objectContaining({ type: "message" }) } }]);
    const bad = (await (await m1.fetch(`/api/console/batches/${b.id}/download/errors`)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(bad).toMatchObject([{ custom_id: "b", result: { type: "errored" } }]);
    expect((await listed(m1)).find((x) => x.id === b.id)).toMatchObject({ dialect: "anthropic", total: 2, succeeded: 1, failed: 1 });
  });

  it("cancels: lines in flight finish, the rest never run, and the whole unspent hold comes back", async () => {
    const heldBefore = await held();
    // The demo answers a batch line at once, so a wave of BATCH_CONCURRENCY lines takes only a few
    // queries: enough lines that the cancel lands while most are still waiting, even on a loaded machine.
    const total = 240;
    const created = await openAIBatch(keys.m1!, Array.from({ length: total }, (_, i) => chatLine(i, `line ${i}`, 6)));
    const running = await until(
      () => listed(m1).then((l) => l.find((b) => b.id === created.id)!),
      (b) => (b.running as number) > 0,
    );
    expect(running.heldMicroUsd).toBeGreaterThan(0);
    expect(running.inFlightMicroUsd).toBeGreaterThan(0);
    expect(running.heldMicroUsd).toBeGreaterThan(running.inFlightMicroUsd as number);
    const c = await m1.json(`/api/console/batches/${created.id}/cancel`, { method: "POST" });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(["cancelling", "finalizing", "cancelled"]).toContain(c.body.batch.status); // finalizing: its last line ended meanwhile
    const ended = await until(
      () => listed(m1).then((l) => l.find((b) => b.id === created.id)!),
      (b) => b.status === "cancelled",
    );
    expect(ended).toMatchObject({ status: "cancelled", running: 0, heldMicroUsd: 0 });
    expect((ended.succeeded as number) + (ended.cancelled as number) + (ended.failed as number)).toBe(total);
    expect(ended.cancelled as number).toBeGreaterThan(0);
    const charges = await server.query("select 1 from ledger_entries where idempotency_key like $1", [`batch:${created.id}:%`]);
    expect(charges.length).toBe(ended.succeeded);
    expect(await held()).toBe(heldBefore);
    // A second cancel of an ended batch changes nothing and returns nothing.
    const again = await m1.json(`/api/console/batches/${created.id}/cancel`, { method: "POST" });
    expect(again.body).toMatchObject({ returnedMicroUsd: 0, batch: { status: "cancelled" } });
  }, 60_000);

  it("returns the hold in the cancel's answer when nothing is in flight", async () => {
    const created = await openAIBatch(keys.m1!, [chatLine(0, "a", 6), chatLine(1, "b", 6), chatLine(2, "c", 6)]);
    // Lines not yet claimed are put out of the runners' reach; those already claimed finish.
    await server.query("update batch_lines set due_at = now() + interval '1 hour' where batch_id = $1 and status = 'pending'", [created.id]);
    const before = await until(
      () => listed(m1).then((l) => l.find((b) => b.id === created.id)!),
      (b) => b.running === 0,
    );
    const c = await m1.json(`/api/console/batches/${created.id}/cancel`, { method: "POST" });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body.batch).toMatchObject({ status: "cancelled", heldMicroUsd: 0 });
    expect(c.body.returnedMicroUsd).toBe(before.heldMicroUsd);
    expect(c.body.batch.cancelled).toBe(3 - (before.succeeded as number) - (before.failed as number));
  });
});
