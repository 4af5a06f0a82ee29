/**
 * Scale-out on one PostgreSQL: two web instances that leave background jobs alone
 * (RUN_WORKERS=false) and two `npm run worker` processes. Video tasks submitted through both
 * instances each complete (or fail and are refunded) exactly once, each final state produces
 * exactly one webhook delivery, and the balance is exact.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver";
import { createAccount } from "../support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

const ROOT = path.resolve(import.meta.dirname, "../..");
let a: TestServer;
let b: TestServer;
let receiver: WebhookReceiver;
const workers: ChildProcess[] = [];

function startWorker(env: Record<string, string>, n: number): ChildProcess {
  const log = fs.openSync(path.join(env.DATA_DIR!, `worker-${n}.log`), "a");
  const p = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/worker.ts")], {
    cwd: ROOT,
    env: { ...env, RUN_WORKERS: "true" } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", log, log],
  });
  fs.closeSync(log);
  return p;
}

beforeAll(async () => {
  if (!usesPostgres()) throw new Error("the scale-out test needs PostgreSQL (DATABASE_URL)");
  receiver = await startWebhookReceiver({ secret: "scale-out-secret" });
  const env = { RUN_WORKERS: "false", WEBHOOK_ALLOW_HOSTS: receiver.hostPort, WEBHOOK_RETRY_SCHEDULE_S: "1,1,1" };
  a = await startTestServer({ env });
  b = await startTestServer({ env, shareWith: a });
  workers.push(startWorker(a.env, 1), startWorker(a.env, 2));
});
afterAll(async () => {
  for (const w of workers) w.kill("SIGTERM");
  await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.once("exit", r)))));
  await b?.dispose();
  await a?.dispose();
  await receiver?.close();
});

describe("two web instances and two workers on one database", () => {
  it("runs every task once, sends one webhook per final state, and keeps the balance exact", async () => {
    const { key, email } = await createAccount(a, { usd: 5 });
    const prompts = ["a", "b", "c [fail]", "d", "e", "f [fail]", "g", "h"].map((p) => `scale-out ${p}`);
    const ids: string[] = [];
    for (const [i, prompt] of prompts.entries()) {
      const s = i % 2 ? b : a;
      const r = await fetch(`${s.url}/v1/videos`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "demo-video", prompt, seconds: "10", webhook: `${receiver.url}/hook`, webhook_secret: "scale-out-secret" }),
      });
      const body = await r.json();
      expect(r.status, JSON.stringify(body)).toBe(200);
      ids.push(body.id);
    }
    const hooks = await receiver.waitFor(ids.length, 90_000);
    // Let any duplicate arrive before counting.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(receiver.received).toHaveLength(ids.length);
    expect(hooks.every((h) => h.signatureOk)).toBe(true);
    const byTask = new Map(receiver.received.map((h) => [(h.json as { id: string }).id, (h.json as { status: string }).status]));
    expect([...byTask.keys()].sort()).toEqual([...ids].sort());
    for (const [i, id] of ids.entries()) expect(byTask.get(id)).toBe(prompts[i]!.includes("[fail]") ? "failed" : "completed");

    // Every task readable from either instance; completed ones downloadable from both.
    for (const id of ids) {
      for (const s of [a, b]) {
        const t = await (await fetch(`${s.url}/v1/tasks/${id}`, { headers: { authorization: `Bearer ${key}` } })).json();
        expect(["completed", "failed"]).toContain(t.status);
      }
    }
    const done = ids[0]!;
    const mp4 = await fetch(`${b.url}/v1/videos/${done}/content`, { headers: { authorization: `Bearer ${key}` } });
    expect(mp4.status).toBe(200);
    expect(Buffer.from(await mp4.arrayBuffer()).subarray(4, 8).toString()).toBe("ftyp");

    const deliveries = await a.query<{ task_id: string; n: number }>(
      "select task_id, count(*)::int as n from webhook_deliveries where not is_test group by task_id",
    );
    expect(deliveries.every((d) => d.n === 1)).toBe(true);
    const [acct] = await a.query<{ id: string; balance: string; held: string }>(
      "select a.id, a.balance_micro_usd as balance, a.held_micro_usd as held from accounts a join users u on u.account_id = a.id where u.email = $1",
      [email],
    );
    expect(Number(acct!.balance)).toBe(5_000_000 - 6 * 250_000); // two failed tasks refunded
    const [ledger] = await a.query<{ sum: string }>("select sum(delta_micro_usd) as sum from ledger_entries where account_id = $1", [acct!.id]);
    expect(Number(ledger!.sum)).toBe(Number(acct!.balance));
    const refunds = await a.query<{ task_id: string }>("select task_id from ledger_entries where account_id = $1 and kind = 'refund'", [acct!.id]);
    expect(refunds).toHaveLength(2);
  });
});
