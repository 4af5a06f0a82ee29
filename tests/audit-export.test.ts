/**
 * The audit event stream through the real server and its worker (decision 0060): an
 * organisation with an audit webhook receives each of its events signed with its own secret, with
 * before and after; another organisation's events never reach it, and an organisation without a
 * webhook queues nothing.
 */
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifySignature, SIGNATURE_HEADER } from "../lib/tasks/webhook-signature";
import { startWebhookReceiver, type WebhookReceiver } from "./fakes/webhook-receiver";
import { adminOk, createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let receiver: WebhookReceiver;
const SECRET = `whsec_${randomBytes(8).toString("hex")}`;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: receiver.hostPort } });
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
});

/** lib/crypto.ts's sealing, with the server's ENCRYPTION_KEY. */
function seal(plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", createHash("sha256").update(server.env.ENCRYPTION_KEY!).digest(), iv);
  const ct = Buffer.concat([c.update(plain, "utf8"), c.final()]);
  return ["v1", iv.toString("base64url"), c.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
}

const accountOf = async (email: string) => (await server.query<{ account_id: string }>("select account_id from users where email = $1", [email]))[0]!.account_id;

describe("audit webhook", () => {
  it("each event of the organisation, signed, with before and after; nothing from others", async () => {
    const a = await createAccount(server, { usd: 1 });
    const b = await createAccount(server, { usd: 1 });
    const acct = await accountOf(a.email);
    await server.query("update accounts set audit_webhook_url = $2, audit_webhook_secret_encrypted = $3 where id = $1", [acct, `${receiver.url}/audit`, seal(SECRET)]);
    await adminOk(server, "credit", "--email", b.email, "--usd", "2");
    await adminOk(server, "credit", "--email", a.email, "--usd", "3");
    const [hook] = await receiver.waitFor(1, 15_000);
    expect(hook!.signatureOk).toBe(true);
    expect(verifySignature(hook!.headers[SIGNATURE_HEADER] as string, hook!.rawBody, SECRET).ok).toBe(true);
    expect(hook!.json).toMatchObject({
      type: "audit.account.credit",
      organisation_id: acct,
      actor: "cli",
      target_type: "account",
      target_id: acct,
      before: { balanceMicroUsd: 1_000_000 },
      after: { balanceMicroUsd: 4_000_000 },
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received).toHaveLength(1);
    // The other organisation's credit was recorded as its event, and queued nowhere.
    const other = await server.query("select account_id from audit_log where action = 'account.credit' and account_id = $1", [await accountOf(b.email)]);
    expect(other.length).toBeGreaterThan(0);
    expect(await server.query("select 1 from webhook_deliveries where kind = 'audit' and account_id <> $1", [acct])).toEqual([]);
  });
});
