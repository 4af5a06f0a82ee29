/**
 * Durability (PostgreSQL): the server is SIGKILLed while a task runs and started again on the
 * same database; the task still completes, with one charge, no refund and one webhook
 * sequence. On PGlite this is not run: a killed embedded database is a different test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "./fakes/openai-video-upstream";
import { startWebhookReceiver, type WebhookReceiver } from "./fakes/webhook-receiver";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";
import { apiClient, micro, videoGatewayConfig } from "./video-config";

const SECRET = "restart-secret-42";

describe.skipIf(!usesPostgres())("a server killed mid-task", () => {
  let server: TestServer;
  let fake: FakeOpenAIVideoUpstream;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    fake = await startFakeOpenAIVideoUpstream({ stepsToComplete: 8 });
    receiver = await startWebhookReceiver({ secret: SECRET });
    server = await startTestServer({
      config: videoGatewayConfig(fake.baseUrl, fake.apiKey),
      env: { TASK_POLL_INTERVAL_MS: "300", WEBHOOK_ALLOW_HOSTS: receiver.hostPort, WEBHOOK_RETRY_SCHEDULE_S: "1,1,1" },
    });
  });
  afterAll(async () => {
    await server?.dispose();
    await fake?.close();
    await receiver?.close();
  });

  it("completes after a restart with one charge and one webhook sequence", async () => {
    const { email, key } = await createAccount(server, { usd: 2 });
    const api = apiClient(server, key);
    const sub = await api.submit({ model: "vid-a", prompt: "survive a crash", seconds: "10", webhook: receiver.url, webhook_secret: SECRET });
    expect(sub.status).toBe(200);
    const id = sub.json.id as string;
    await api.until(id, ["in_progress"]);

    await server.stop("SIGKILL");
    await server.restart();

    const done = await api.until(id, ["completed", "failed"], 90_000);
    expect(done.status).toBe("completed");
    const content = await fetch(`${server.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${key}` } });
    expect(Buffer.from(await content.arrayBuffer()).subarray(4, 8).toString("latin1")).toBe("ftyp");

    const ledger = await server.query<{ kind: string; delta_micro_usd: number }>("select kind, delta_micro_usd from ledger_entries where task_id = $1", [id]);
    expect(ledger.map((l) => [l.kind, Number(l.delta_micro_usd)])).toEqual([["charge", -250_000]]);
    expect(micro(2 - (await balanceUsd(server, email)))).toBe(250_000);

    const deadline = Date.now() + 30_000;
    while (!receiver.received.some((h) => (h.json as { id?: string })?.id === id)) {
      if (Date.now() > deadline) throw new Error("no webhook");
      await new Promise((r) => setTimeout(r, 100));
    }
    // The receiver answers before the attempt is recorded: wait for the record.
    let deliveries: { state: string; event_status: string }[] = [];
    while (Date.now() < deadline) {
      deliveries = await server.query<{ state: string; event_status: string }>("select state, event_status from webhook_deliveries where task_id = $1", [id]);
      if (deliveries.every((d) => d.state !== "pending")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveries).toEqual([{ state: "delivered", event_status: "completed" }]);
    const hooks = receiver.received.filter((h) => (h.json as { id?: string })?.id === id);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.signatureOk).toBe(true);
    expect(hooks[0]!.json).toMatchObject({ status: "completed", cost: 0.25 });
  }, 150_000);

  it("a task killed right after its submission still finishes with one charge", async () => {
    const { key } = await createAccount(server, { usd: 1 });
    const api = apiClient(server, key);
    const sub = await api.submit({ model: "vid-a", prompt: "kill right away", seconds: "10" });
    expect(sub.status).toBe(200);
    await server.stop("SIGKILL");
    await server.restart();
    const done = await api.until(sub.json.id, ["completed", "failed"], 120_000);
    expect(done.status).toBe("completed");
    const ledger = await server.query<{ kind: string }>("select kind from ledger_entries where task_id = $1", [sub.json.id]);
    expect(ledger.map((l) => l.kind)).toEqual(["charge"]);
  }, 150_000);
});
