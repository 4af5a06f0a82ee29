/**
 * A fake of the slice of the Stripe API the gateway uses, on loopback: Checkout Sessions
 * (create, retrieve), PaymentIntents and Charges (retrieve). It records every request, speaks
 * Stripe's form-encoded requests and JSON answers, and can "pay" a session, refund a charge or
 * open a dispute, returning the event objects Stripe would send. A small hosted "pay page"
 * (GET/POST /pay/:id) lets a browser test walk through Checkout; when `webhook` is set, paying
 * there posts a signed `checkout.session.completed` to the gateway like Stripe does.
 */
import http from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

type Obj = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  body: Obj;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
}

export interface FakeSession extends Obj {
  id: string;
  object: "checkout.session";
  mode: string;
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid" | "no_payment_required";
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string;
  url: string;
  livemode: false;
}

/** `a[b][0][c]=1` → { a: { b: [ { c: "1" } ] } } (stripe-node's encoding). */
export function parseStripeForm(body: string): Obj {
  const out: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.replace(/\]/g, "").split("[");
    let node: Obj | unknown[] = out;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]!);
      const container = node as Record<string, unknown>;
      if (last) container[part] = value;
      else {
        container[part] ??= nextIsIndex ? [] : {};
        node = container[part] as Obj;
      }
    });
  }
  return out;
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;

export interface FakeStripeOptions {
  /** Where the pay page posts its signed checkout.session.completed (the gateway's webhook). */
  webhook?: { url: string; secret: string };
}

export interface FakeStripe {
  url: string;
  port: number;
  requests: RecordedRequest[];
  sessions: Map<string, FakeSession>;
  /** Marks a session paid (or leaves it unpaid for delayed methods) and creates its PaymentIntent and Charge. */
  pay(sessionId: string, opts?: { paymentStatus?: "paid" | "unpaid"; receipt?: boolean }): FakeSession;
  /** Whether the pay page's charges get a receipt_url (on by default; tests of the PDF fallback turn it off). */
  receipts: boolean;
  /** A Stripe event object around `object`. */
  event(type: string, object: Obj): Obj & { id: string; type: string };
  /** Refunds `cents` more on the charge of a paid session; returns the updated charge. */
  refund(sessionId: string, cents: number): Obj & { id: string };
  /** Opens a dispute on the charge of a paid session. */
  dispute(sessionId: string, cents: number): Obj & { id: string };
  /** Signs and posts an event to the configured webhook, as Stripe does. */
  deliver(event: Obj, secret?: string, url?: string): Promise<Response>;
  close(): Promise<void>;
}

export async function startFakeStripe(opts: FakeStripeOptions = {}): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, FakeSession>();
  const intents = new Map<string, Obj>();
  const charges = new Map<string, Obj & { id: string; amount: number; amount_refunded: number }>();
  const chargeOfSession = new Map<string, string>();
  const signer = new Stripe("sk_test_signer");
  let base = "";

  const notFound = (res: http.ServerResponse, what: string) =>
    send(res, 404, { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` } });

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", base);
    const body = parseStripeForm(raw);
    if (url.pathname.startsWith("/v1/")) {
      requests.push({
        method: req.method ?? "GET",
        path: url.pathname,
        body,
        authorization: req.headers.authorization,
        idempotencyKey: req.headers["idempotency-key"] as string | undefined,
      });
    }
    let m: RegExpMatchArray | null;
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const item = ((body.line_items as Obj[] | undefined) ?? [])[0] as Obj | undefined;
      const priceData = (item?.price_data ?? {}) as Obj;
      const quantity = Number(item?.quantity ?? 1);
      const unit = Number(priceData.unit_amount);
      if (!item || !Number.isInteger(unit) || unit <= 0) {
        return send(res, 400, { error: { type: "invalid_request_error", message: "line_items[0][price_data][unit_amount] is required" } });
      }
      const sid = id("cs");
      const session: FakeSession = {
        id: sid,
        object: "checkout.session",
        mode: String(body.mode ?? "payment"),
        status: "open",
        payment_status: "unpaid",
        amount_total: unit * quantity,
        currency: String(priceData.currency ?? "usd"),
        client_reference_id: (body.client_reference_id as string | undefined) ?? null,
        metadata: (body.metadata as Record<string, string> | undefined) ?? {},
        payment_intent: null,
        success_url: String(body.success_url ?? ""),
        cancel_url: String(body.cancel_url ?? ""),
        url: `${base}/pay/${sid}`,
        livemode: false,
        customer_email: body.customer_email ?? null,
        payment_intent_data: body.payment_intent_data ?? {},
      };
      sessions.set(sid, session);
      return send(res, 200, session);
    }
    if (req.method === "GET" && (m = url.pathname.match(/^\/v1\/checkout\/sessions\/([^/]+)$/))) {
      const s = sessions.get(decodeURIComponent(m[1]!));
      return s ? send(res, 200, s) : notFound(res, "checkout.session");
    }
    if (req.method === "GET" && (m = url.pathname.match(/^\/v1\/payment_intents\/([^/]+)$/))) {
      const pi = intents.get(decodeURIComponent(m[1]!));
      return pi ? send(res, 200, pi) : notFound(res, "payment_intent");
    }
    if (req.method === "GET" && (m = url.pathname.match(/^\/v1\/charges\/([^/]+)$/))) {
      const ch = charges.get(decodeURIComponent(m[1]!));
      return ch ? send(res, 200, ch) : notFound(res, "charge");
    }
    if (req.method === "GET" && (m = url.pathname.match(/^\/receipts\/([^/]+)$/))) {
      const ch = charges.get(decodeURIComponent(m[1]!));
      if (!ch) return notFound(res, "receipt");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(`<!doctype html><title>Receipt</title><h1>Receipt from Fake Stripe</h1><p data-charge="${ch.id}">Amount paid $${(ch.amount / 100).toFixed(2)}</p>`);
    }
    if ((m = url.pathname.match(/^\/pay\/([^/]+)$/))) {
      const s = sessions.get(decodeURIComponent(m[1]!));
      if (!s) return notFound(res, "checkout.session");
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return res.end(payPage(s));
      }
      if (new URLSearchParams(raw).get("action") === "cancel") {
        res.writeHead(303, { location: s.cancel_url });
        return res.end();
      }
      fake.pay(s.id);
      if (opts.webhook) await fake.deliver(fake.event("checkout.session.completed", s)).catch(() => undefined);
      res.writeHead(303, { location: s.success_url.replace("{CHECKOUT_SESSION_ID}", s.id) });
      return res.end();
    }
    return send(res, 404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url.pathname})` } });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  const chargeFor = (sessionId: string) => {
    const chId = chargeOfSession.get(sessionId);
    const ch = chId ? charges.get(chId) : undefined;
    if (!ch) throw new Error(`session ${sessionId} has no charge (pay it first)`);
    return ch;
  };

  const fake: FakeStripe = {
    url: base,
    port,
    requests,
    sessions,
    receipts: true,
    pay(sessionId, o = {}) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      s.status = "complete";
      s.payment_status = o.paymentStatus ?? "paid";
      if (!s.payment_intent) {
        const piId = id("pi");
        const pid = (s.payment_intent_data as Obj | undefined)?.metadata as Record<string, string> | undefined;
        const chId = id("ch");
        intents.set(piId, { id: piId, object: "payment_intent", amount: s.amount_total, currency: s.currency, metadata: pid ?? {}, status: "succeeded", latest_charge: chId });
        const receiptUrl = (o.receipt ?? fake.receipts) ? `${base}/receipts/${chId}` : null;
        charges.set(chId, { id: chId, object: "charge", amount: s.amount_total, amount_refunded: 0, currency: s.currency, payment_intent: piId, refunded: false, metadata: {}, receipt_url: receiptUrl });
        chargeOfSession.set(sessionId, chId);
        s.payment_intent = piId;
      }
      return s;
    },
    event(type, object) {
      return {
        id: id("evt"),
        object: "event",
        api_version: "2026-10-28.endive",
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        pending_webhooks: 1,
        type,
        data: { object: structuredClone(object) },
      };
    },
    refund(sessionId, cents) {
      const ch = chargeFor(sessionId);
      ch.amount_refunded = Math.min(ch.amount, ch.amount_refunded + cents);
      ch.refunded = ch.amount_refunded === ch.amount;
      return structuredClone(ch);
    },
    dispute(sessionId, cents) {
      const ch = chargeFor(sessionId);
      return { id: id("dp"), object: "dispute", amount: cents, currency: ch.currency, charge: ch.id, payment_intent: ch.payment_intent, status: "needs_response" };
    },
    async deliver(event, secret = opts.webhook?.secret, url = opts.webhook?.url) {
      if (!secret || !url) throw new Error("no webhook configured");
      const payload = JSON.stringify(event);
      const signature = signer.webhooks.generateTestHeaderString({ payload, secret });
      return fetch(url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": signature }, body: payload });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

function send(res: http.ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomBytes(6).toString("hex")}` });
  res.end(JSON.stringify(value));
}

function payPage(s: FakeSession): string {
  const usd = (s.amount_total / 100).toFixed(2);
  return `<!doctype html><html><head><title>Fake Stripe Checkout</title></head>
<body style="font-family:sans-serif;max-width:28rem;margin:4rem auto">
<h1>Fake Stripe Checkout</h1>
<p>Pay <strong data-testid="fake-stripe-amount">$${usd}</strong> (${s.currency.toUpperCase()}) to Generation Gateway.</p>
<form method="post"><button name="action" value="pay" data-testid="fake-stripe-pay">Pay $${usd}</button>
<button name="action" value="cancel" data-testid="fake-stripe-cancel">Cancel</button></form>
</body></html>`;
}
