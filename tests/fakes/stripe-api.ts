/**
 * A fake of the slice of the Stripe API the gateway uses, on loopback: Checkout Sessions
 * (create, retrieve), PaymentIntents and Charges (retrieve). It records every request, speaks
 * Stripe's form-encoded requests and JSON answers, and can "pay" a session, refund a charge or
 * open a dispute, returning the event objects Stripe would send. A small hosted "pay page"
 * (GET/POST /pay/:id) lets a browser test walk through Checkout; when `webhook` is set, paying
 * there posts a signed `checkout.session.completed` to the gateway like Stripe does.
 *
 * Auto top-up's slice too: Customers (create), Checkout in setup mode (the pay page saves a card:
 * 4242 works, 0002 is declined, 3155 needs authentication, as Stripe's test cards), SetupIntents
 * and PaymentMethods (retrieve), and off-session PaymentIntents (create) with Stripe's refusals:
 * `off_session` needs `confirm`, the method must belong to the customer, a declined card answers
 * 402 `card_error`; an Idempotency-Key replays the first answer. A successful charge posts a
 * signed `payment_intent.succeeded` when `webhook` is set.
 *
 * And what deleting an organisation needs: expiring an open Checkout Session (Stripe refuses one
 * that is not open) and refunding a PaymentIntent (the whole remaining amount, or `amount`).
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

/** A card the pay page can save in setup mode (Stripe's test numbers by their last four). */
export const FAKE_CARDS: Record<string, { brand: string; decline?: { code: string; decline_code?: string; message: string } }> = {
  "4242": { brand: "visa" },
  "0002": { brand: "visa", decline: { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." } },
  "3155": { brand: "visa", decline: { code: "authentication_required", message: "Your card was declined. This transaction requires authentication." } },
};

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
  /** The next this many POST answers are lost after they took effect (the connection is cut). */
  dropAnswers: number;
  /** PaymentIntents made by the API (auto top-ups), by id. */
  intents: Map<string, Obj>;
  /** Refunds made through the API, in order. */
  refunds: Obj[];
  /** Saves a card on a setup-mode session, as its pay page does (`last4` from FAKE_CARDS). */
  saveCard(sessionId: string, last4?: string): FakeSession;
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
  const customers = new Map<string, Obj>();
  const refunds: Obj[] = [];
  const setupIntents = new Map<string, Obj>();
  const methods = new Map<string, Obj & { customer: string | null; card: { brand: string; last4: string } }>();
  /** Idempotency-Key → the first answer (Stripe replays it for 24 hours). */
  const replays = new Map<string, { status: number; body: unknown; raw: string }>();
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
    const idem = req.headers["idempotency-key"] as string | undefined;
    /** A POST's answer, unless it is to be lost on the way (the request took effect: a crash or a cut connection). */
    const reply = (status: number, value: unknown) => {
      if (req.method === "POST" && fake.dropAnswers > 0) {
        fake.dropAnswers--;
        return void res.destroy();
      }
      return send(res, status, value);
    };
    if (req.method === "POST" && idem && replays.has(`${url.pathname}:${idem}`)) {
      const r = replays.get(`${url.pathname}:${idem}`)!;
      if (r.raw !== raw) {
        return send(res, 400, { error: { type: "idempotency_error", message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idem}' if you meant to execute a different request.` } });
      }
      return reply(r.status, r.body);
    }
    const answer = (status: number, value: unknown) => {
      if (req.method === "POST" && idem) replays.set(`${url.pathname}:${idem}`, { status, body: value, raw });
      return reply(status, value);
    };
    if (req.method === "POST" && url.pathname === "/v1/customers") {
      const c = { id: id("cus"), object: "customer", email: body.email ?? null, metadata: body.metadata ?? {}, livemode: false };
      customers.set(c.id, c);
      return answer(200, c);
    }
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions" && body.mode === "setup") {
      if (!body.customer || !customers.has(String(body.customer))) return answer(400, { error: { type: "invalid_request_error", param: "customer", message: `No such customer: '${body.customer}'` } });
      if (!body.currency) return answer(400, { error: { type: "invalid_request_error", param: "currency", message: "currency is required in setup mode when payment_method_types is not set" } });
      const sid = id("cs");
      const session: FakeSession = {
        id: sid,
        object: "checkout.session",
        mode: "setup",
        status: "open",
        payment_status: "no_payment_required",
        amount_total: 0,
        currency: String(body.currency),
        client_reference_id: (body.client_reference_id as string | undefined) ?? null,
        metadata: (body.metadata as Record<string, string> | undefined) ?? {},
        payment_intent: null,
        setup_intent: null,
        customer: String(body.customer),
        success_url: String(body.success_url ?? ""),
        cancel_url: String(body.cancel_url ?? ""),
        url: `${base}/pay/${sid}`,
        livemode: false,
      };
      sessions.set(sid, session);
      return answer(200, session);
    }
    if (req.method === "GET" && (m = url.pathname.match(/^\/v1\/setup_intents\/([^/]+)$/))) {
      const si = setupIntents.get(decodeURIComponent(m[1]!));
      return si ? send(res, 200, si) : notFound(res, "setup_intent");
    }
    if (req.method === "GET" && (m = url.pathname.match(/^\/v1\/payment_methods\/([^/]+)$/))) {
      const pm = methods.get(decodeURIComponent(m[1]!));
      return pm ? send(res, 200, pm) : notFound(res, "payment_method");
    }
    if (req.method === "POST" && (m = url.pathname.match(/^\/v1\/payment_methods\/([^/]+)\/detach$/))) {
      const pm = methods.get(decodeURIComponent(m[1]!));
      if (!pm) return notFound(res, "payment_method");
      pm.customer = null;
      return answer(200, pm);
    }
    if (req.method === "POST" && url.pathname === "/v1/payment_intents") {
      const refuse = (param: string, message: string) => answer(400, { error: { type: "invalid_request_error", param, message } });
      const amount = Number(body.amount);
      if (!Number.isInteger(amount) || amount < 50) return refuse("amount", "Amount must be at least $0.50 usd");
      if (body.off_session === "true" && body.confirm !== "true") return refuse("off_session", "off_session can only be used when confirm=true.");
      const pm = methods.get(String(body.payment_method));
      if (!pm) return refuse("payment_method", `No such PaymentMethod: '${body.payment_method}'`);
      if (pm.customer !== body.customer) return refuse("payment_method", "The provided PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.");
      const piId = id("pi");
      const card = FAKE_CARDS[pm.card.last4] ?? FAKE_CARDS["4242"]!;
      const pi: Obj = { id: piId, object: "payment_intent", amount, amount_received: 0, currency: String(body.currency ?? "usd"), customer: body.customer, payment_method: pm.id, metadata: body.metadata ?? {}, status: "requires_payment_method", latest_charge: null, livemode: false };
      intents.set(piId, pi);
      if (card.decline) {
        if (card.decline.code === "authentication_required") pi.status = "requires_action";
        pi.last_payment_error = { type: "card_error", ...card.decline };
        return answer(402, { error: { type: "card_error", ...card.decline, payment_intent: pi, payment_method: pm } });
      }
      const chId = id("ch");
      charges.set(chId, { id: chId, object: "charge", amount, amount_refunded: 0, currency: String(pi.currency), payment_intent: piId, refunded: false, metadata: {}, receipt_url: fake.receipts ? `${base}/receipts/${chId}` : null });
      Object.assign(pi, { status: "succeeded", amount_received: amount, latest_charge: chId });
      answer(200, pi);
      if (opts.webhook) void fake.deliver(fake.event("payment_intent.succeeded", pi)).catch(() => undefined);
      return;
    }
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
    if (req.method === "POST" && (m = url.pathname.match(/^\/v1\/checkout\/sessions\/([^/]+)\/expire$/))) {
      const s = sessions.get(decodeURIComponent(m[1]!));
      if (!s) return notFound(res, "checkout.session");
      if (s.status !== "open") return send(res, 400, { error: { type: "invalid_request_error", message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status}".` } });
      s.status = "expired";
      return answer(200, s);
    }
    if (req.method === "POST" && url.pathname === "/v1/refunds") {
      const pi = intents.get(String(body.payment_intent ?? ""));
      const ch = pi ? charges.get(String(pi.latest_charge)) : undefined;
      if (!pi || !ch) return notFound(res, "payment_intent");
      const left = ch.amount - ch.amount_refunded;
      const amount = body.amount === undefined ? left : Number(body.amount);
      if (left <= 0) return send(res, 400, { error: { type: "invalid_request_error", code: "charge_already_refunded", message: `Charge ${ch.id} has already been refunded.` } });
      if (!Number.isInteger(amount) || amount <= 0 || amount > left) return send(res, 400, { error: { type: "invalid_request_error", code: "amount_too_large", message: "Refund amount is greater than the unrefunded amount on the charge." } });
      ch.amount_refunded += amount;
      ch.refunded = ch.amount_refunded === ch.amount;
      const refund = { id: id("re"), object: "refund", amount, charge: ch.id, payment_intent: pi.id, currency: ch.currency, status: "succeeded", reason: body.reason ?? null, metadata: body.metadata ?? {} };
      refunds.push(refund);
      return answer(200, refund);
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
      const action = new URLSearchParams(raw).get("action");
      if (action === "cancel") {
        res.writeHead(303, { location: s.cancel_url });
        return res.end();
      }
      if (s.mode === "setup") fake.saveCard(s.id, action?.replace(/^card-/, "") || "4242");
      else fake.pay(s.id);
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
    intents,
    refunds,
    dropAnswers: 0,
    saveCard(sessionId, last4 = "4242") {
      const s = sessions.get(sessionId);
      if (!s || s.mode !== "setup") throw new Error(`no setup session ${sessionId}`);
      const pmId = id("pm");
      methods.set(pmId, { id: pmId, object: "payment_method", type: "card", customer: String(s.customer), card: { brand: FAKE_CARDS[last4]?.brand ?? "visa", last4 } });
      const siId = id("seti");
      setupIntents.set(siId, { id: siId, object: "setup_intent", status: "succeeded", customer: s.customer, payment_method: pmId, usage: "off_session", metadata: {} });
      s.status = "complete";
      s.setup_intent = siId;
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
  if (s.mode === "setup") {
    return `<!doctype html><html><head><title>Fake Stripe Checkout</title></head>
<body style="font-family:sans-serif;max-width:28rem;margin:4rem auto">
<h1>Fake Stripe Checkout</h1>
<p>Save a card for future payments to Generation Gateway.</p>
<form method="post">${Object.keys(FAKE_CARDS)
      .map((l4) => `<button name="action" value="card-${l4}" data-testid="fake-stripe-save-${l4}">Save card •••• ${l4}</button>`)
      .join(" ")}
<button name="action" value="cancel" data-testid="fake-stripe-cancel">Cancel</button></form>
</body></html>`;
  }
  const usd = (s.amount_total / 100).toFixed(2);
  return `<!doctype html><html><head><title>Fake Stripe Checkout</title></head>
<body style="font-family:sans-serif;max-width:28rem;margin:4rem auto">
<h1>Fake Stripe Checkout</h1>
<p>Pay <strong data-testid="fake-stripe-amount">$${usd}</strong> (${s.currency.toUpperCase()}) to Generation Gateway.</p>
<form method="post"><button name="action" value="pay" data-testid="fake-stripe-pay">Pay $${usd}</button>
<button name="action" value="cancel" data-testid="fake-stripe-cancel">Cancel</button></form>
</body></html>`;
}
