/**
 * The console's webhook tools are not a free POST cannon (issue 12, item 11): a $0 account gets
 * 10 signed test events a minute and 30 resends an hour, and resending a delivery that is still
 * pending retries it instead of queueing another one with its own full retry schedule.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "../console-helpers";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

let server: TestServer;
let receiver: WebhookReceiver;
let user: Session;
let accountId: string;

beforeAll(async () => {
  if (!usesPostgres()) throw new Error("needs PostgreSQL (DATABASE_URL)");
  // The receiver never acknowledges and the schedule is long, so a delivery stays pending however often it is retried.
  receiver = await startWebhookReceiver({ fallback: { status: 503 } });
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: receiver.hostPort, WEBHOOK_RETRY_SCHEDULE_S: Array(60).fill("3600").join(",") } });
  user = await signUp(server);
  const [row] = await server.query<{ account_id: string }>("select account_id from users where email = $1", [user.email]);
  accountId = row!.account_id;
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
});

describe("webhook test events and resends", () => {
  it("allows 10 test events a minute per account, then 429 with Retry-After", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const r = await user.fetch("/api/console/webhooks/test", { method: "POST", body: { url: receiver.url } });
      statuses.push(r.status);
      if (r.status === 429) expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      await r.body?.cancel();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
    expect(receiver.received.length).toBe(10);
  });

  it("retries a pending delivery instead of adding another, and limits resends to 30 an hour", async () => {
    await server.query(
      "insert into webhook_deliveries (id, task_id, account_id, url, body, event_status, state, attempts, next_attempt_at) values ($1, $2, $3, $4, $5, 'completed', 'pending', 1, now() + interval '1 hour')",
      ["delivery_cannon_1", "task_cannon_1", accountId, receiver.url, '{"id":"task_cannon_1"}'],
    );
    const statuses: number[] = [];
    for (let i = 0; i < 35; i++) {
      const r = await user.fetch("/api/console/webhooks/delivery_cannon_1/resend", { method: "POST" });
      statuses.push(r.status);
      await r.body?.cancel();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.slice(30)).toEqual([429, 429, 429, 429, 429]);
    // One delivery for the task however many resends: it was made due, not copied.
    const rows = await server.query<{ n: string }>("select count(*) as n from webhook_deliveries where task_id = 'task_cannon_1'");
    expect(Number(rows[0]!.n)).toBe(1);
  });
});
