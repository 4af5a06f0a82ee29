/**
 * Starts what the console specs run against: the real server (`npm start` through the shared
 * test harness, on a fresh PostgreSQL database when DATABASE_URL is set) with Stripe pointed
 * at the fake Stripe API, whose pay page posts signed webhooks back to the server.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { startSmtpInbox } from "../tests/fakes/smtp-inbox";
import { startFakeStripe } from "../tests/fakes/stripe-api";
import { startTestServer } from "../tests/support/server";

export const WEBHOOK_SECRET = "whsec_e2e_console";

export default async function globalSetup() {
  // Screenshots of this run only.
  fs.rmSync("test-results/screenshots", { recursive: true, force: true });
  const hook = { url: "", secret: WEBHOOK_SECRET };
  const stripe = await startFakeStripe({ webhook: hook });
  // A webhook receiver on loopback (allowed by WEBHOOK_ALLOW_HOSTS): POST records, GET /received reads back.
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const receiver = http.createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    if (req.method === "GET" && req.url === "/received") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(received));
    }
    received.push({ headers: req.headers, body });
    res.writeHead(204);
    res.end();
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const receiverHost = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  if (!process.env.DATABASE_URL) console.warn("[e2e] DATABASE_URL is not set: running on embedded PGlite instead of PostgreSQL.");
  // The console spec signs up as this admin whichever spec file signs up first.
  const adminEmail = `e2e-admin-${Date.now()}@example.test`;
  // A real SMTP server on loopback; each message is also written to E2E_MAIL_DIR for the specs.
  const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-mail-"));
  const inbox = await startSmtpInbox({ dir: mailDir });
  const server = await startTestServer({
    env: { UPSTREAM_HEALTH_MIN_CALLERS: "1" /* one operator, one organisation: a single tenant (decision 0035) */, SIGNUP_LIMIT_PER_HOUR: "1000" /* every spec signs people up from 127.0.0.1 */, STRIPE_SECRET_KEY: "sk_test_e2e", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url, WEBHOOK_ALLOW_HOSTS: receiverHost, ADMIN_EMAILS: adminEmail, SMTP_URL: inbox.url },
  });
  hook.url = `${server.url}/api/stripe/webhook`;
  // Workers read these; the browser uses PUBLIC_BASE_URL so that Origin matches the server's.
  process.env.E2E_BASE_URL = server.env.PUBLIC_BASE_URL;
  process.env.E2E_FAKE_STRIPE_URL = stripe.url;
  process.env.E2E_RECEIVER_URL = `http://${receiverHost}`;
  process.env.E2E_ADMIN_EMAIL = adminEmail;
  process.env.E2E_MAIL_DIR = mailDir;
  return async () => {
    await server.dispose();
    await stripe.close();
    await inbox.close();
    fs.rmSync(mailDir, { recursive: true, force: true });
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  };
}
