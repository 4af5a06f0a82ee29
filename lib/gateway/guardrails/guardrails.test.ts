/**
 * Issue 41's guardrail matrix: each verdict (allow, block, redact) at each stage, streamed and
 * not, in each of the four client protocols (each passed through to its own vendor's fake, the
 * path whose bytes a rewrite must not let through), and the webhook's fail policies.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFourTextFakes, type FourTextFakes, type Up } from "../../../tests/fakes/four-text-upstreams";
import { guardrailSchema, type GuardrailConfig } from "../../config/schema";
import { verifySignature } from "../../tasks/webhook-signature";
import { errors } from "../errors";
import { chatCompletions, generateContent, messages, responses } from "../protocols";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import { handleText } from "../routes/text-handler";
import type { Hold, RequestLogFields } from "../../billing/port";

/** A settlement as the port was given it, its log fields flattened beside the hold and the cost. */
type Settled = RequestLogFields & { hold: Hold | null; costMicroUsd: number; reason: string };
import { compileGuard, installGuardrails, installStoredGuardrails, guardrailsFor } from "./registry";
import { GUARDRAILS_HEADER } from "./session";

let four: FourTextFakes;
let hook: Server;
let hookUrl = "";
const hookCalls: { path: string; body: any; signed: boolean }[] = [];
const HOOK_SECRET = "whsec_guardrail_test_secret";

beforeAll(async () => {
  four = await startFourTextFakes();
  hook = createServer(async (req, res) => {
    let raw = "";
    for await (const c of req) raw += c;
    hookCalls.push({ path: req.url!, body: JSON.parse(raw), signed: verifySignature(req.headers["x-shim-signature"] as string, raw, HOOK_SECRET).ok });
    if (req.url === "/slow") await new Promise((r) => setTimeout(r, 1_000));
    if (req.url === "/broken") return res.writeHead(500).end("no");
    const body = JSON.parse(raw) as { text: string };
    const verdict = req.url === "/block" && body.text.includes("bomb") ? { verdict: "block", reason: "no bombs" } : req.url === "/redact" ? { verdict: "redact", redact: ["Bob"] } : { verdict: "allow" };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(verdict));
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await four?.close();
  hook?.closeAllConnections();
  await new Promise((r) => hook?.close(r));
});

const PROTOCOLS: { name: string; up: Up; protocol: InboundProtocol; body(prompt: string, stream: boolean): { body: unknown; opts?: ParseOptions } }[] = [
  { name: "chat completions", up: "openai", protocol: chatCompletions, body: (p, stream) => ({ body: { model: "m-openai", stream, ...(stream ? { stream_options: { include_usage: true } } : {}), messages: [{ role: "user", content: p }] } }) },
  { name: "Responses", up: "responses", protocol: responses, body: (p, stream) => ({ body: { model: "m-responses", stream, input: p } }) },
  { name: "Messages", up: "anthropic", protocol: messages, body: (p, stream) => ({ body: { model: "m-anthropic", stream, max_tokens: 200, messages: [{ role: "user", content: p }] } }) },
  { name: "Gemini", up: "gemini", protocol: generateContent, body: (p, stream) => ({ body: { contents: [{ role: "user", parts: [{ text: p }] }] }, opts: { pathModel: "m-gemini", stream } }) },
];

const guards = (...list: Record<string, unknown>[]) => list.map((g) => compileGuard(guardrailSchema.parse(g) as GuardrailConfig));

async function call(p: (typeof PROTOCOLS)[number], prompt: string, stream: boolean, answer: string, list: ReturnType<typeof guards>) {
  const settled: Settled[] = [];
  four.fakes[p.up].reset({ text: answer });
  const { body, opts } = p.body(prompt, stream);
  const r = await handleText(
    { protocol: p.protocol, body, bodyBytes: JSON.stringify(body).length, parseOpts: opts, signal: new AbortController().signal, startedAt: performance.now() },
    {
      resolveRoutes: async (model) => (model === `m-${p.up}` ? { ok: true, value: { routes: [four.route(p.up)] } } : { ok: false, error: errors.modelNotFound(model) }),
      billing: {
        reserve: async (amount) => ({ ok: true, hold: { kind: "row", holdId: "h", amountMicroUsd: amount } }),
        settle: async (hold, s) => {
          settled.push({ ...s.log, hold, costMicroUsd: s.costMicroUsd, reason: s.log.settlement });
          return { chargedMicroUsd: s.costMicroUsd, balanceAfterMicroUsd: null };
        },
      },
      caller: "org_1",
      guardrails: list,
    },
  );
  let text = "";
  if (typeof r.body === "string") text = r.body;
  else if (r.body && !(r.body instanceof Uint8Array)) for await (const s of r.body as AsyncIterable<string>) text += s;
  await new Promise((done) => setImmediate(done));
  const upstream = four.fakes[p.up].generationRequests();
  return { status: r.status, headers: r.headers, text, settled, upstream: upstream.map((u) => JSON.stringify(u.body)).join("\n") };
}

const EMAIL = "alice.smith@example.com";

describe.each(PROTOCOLS)("guardrails on $name", (p) => {
  describe.each([false, true])("stream %s", (stream) => {
    it("allow: the answer goes through, the policy is named", async () => {
      const r = await call(p, "Say hello", stream, "Hello there friend", guards({ id: "words", stage: "post_response", type: "regex", pattern: "forbidden", action: "block" }));
      expect(r.status).toBe(200);
      expect(r.text).toContain("friend");
      expect(r.headers[GUARDRAILS_HEADER]).toBe(`post=words (${stream ? "buffer" : "whole answer"})`);
      expect(r.settled).toHaveLength(1);
      expect(r.settled[0]).toMatchObject({ reason: "completed", guardrails: `post=words (${stream ? "buffer" : "whole answer"})` });
    });

    it("pre_request block: a 400 content_policy in the protocol's shape, nothing sent upstream, nothing charged", async () => {
      const r = await call(p, "how to build a bomb", stream, "no", guards({ id: "no-bombs", stage: "pre_request", type: "regex", pattern: "\\bbomb\\b", action: "block" }));
      expect(r.status).toBe(400);
      expect(r.text).toContain("content_policy");
      expect(r.text).toContain('guardrail \\"no-bombs\\"');
      if (p.name === "Messages") expect(JSON.parse(r.text).type).toBe("error");
      if (p.name === "Gemini") expect(JSON.parse(r.text).error.status).toBe("INVALID_ARGUMENT");
      expect(r.upstream).toBe("");
      expect(r.settled[0]).toMatchObject({ costMicroUsd: 0, hold: null, reason: "rejected", errorCode: "content_policy" });
      expect(r.settled[0]!.guardrails).toBe("pre=no-bombs; blocked by no-bombs (pre_request)");
    });

    it("pre_request redact: the upstream gets the masked prompt, the log row none of it", async () => {
      const r = await call(p, `Write to ${EMAIL} please`, stream, "Done", guards({ id: "pii-in", stage: "pre_request", type: "pii" }));
      expect(r.status).toBe(200);
      expect(r.upstream).toContain("[REDACTED]");
      expect(r.upstream).not.toContain(EMAIL);
      expect(r.settled[0]!.guardrails).toBe("pre=pii-in; redacted by pii-in (pre_request)");
      expect(JSON.stringify(r.settled)).not.toContain(EMAIL);
    });

    it("post_response block: the answer never reaches the client; the upstream's charge is kept and named", async () => {
      const r = await call(p, "tell me", stream, "one two three four five six seven eight SECRET-42 nine", guards({ id: "secret", stage: "post_response", type: "regex", pattern: "SECRET-\\d+", action: "block", ...(stream ? { stream: "holdback", holdback: 12 } : {}) }));
      expect(r.text).not.toContain("SECRET-42");
      expect(r.text).toContain("content_policy");
      expect(r.settled[0]).toMatchObject({ reason: "guardrail_blocked", errorCode: "content_policy" });
      expect(r.settled[0]!.costMicroUsd).toBeGreaterThan(0);
      expect(r.settled[0]!.guardrails).toContain("blocked by secret (post_response)");
      if (!stream) expect(r.status).toBe(400);
      else {
        // holdback: the checked beginning went out before the block; the stream ends on the error event.
        expect(r.status).toBe(200);
        expect(r.text).toContain("one");
        expect(r.text).not.toContain("[DONE]");
        expect(r.text).not.toMatch(/message_stop|response\.completed|"finishReason"/);
      }
    });

    it.each(["buffer", "holdback"] as const)("post_response redact (%s): the client sees the mask, never the match", async (policy) => {
      if (!stream && policy === "holdback") return;
      const r = await call(p, "contact?", stream, `Mail ${EMAIL} today`, guards({ id: "pii-out", stage: "post_response", type: "pii", ...(stream ? { stream: policy, ...(policy === "holdback" ? { holdback: 40 } : {}) } : {}) }));
      expect(r.status).toBe(200);
      expect(r.text).not.toContain("alice.smith");
      expect(r.text).toContain("[REDACTED]");
      expect(r.text).toContain("today");
      expect(r.settled[0]).toMatchObject({ reason: "completed" });
      expect(r.settled[0]!.guardrails).toContain("redacted by pii-out (post_response)");
      expect(JSON.stringify(r.settled)).not.toContain(EMAIL);
    });

    it("reject: a streamed request is refused with a 400 saying why; a whole one is served", async () => {
      const r = await call(p, "hi", stream, "Hello", guards({ id: "whole-only", stage: "post_response", type: "pii", stream: "reject" }));
      if (stream) {
        expect(r.status).toBe(400);
        expect(r.text).toContain("refuses streamed requests");
        expect(r.upstream).toBe("");
        expect(r.settled[0]).toMatchObject({ costMicroUsd: 0, reason: "rejected" });
      } else expect(r.status).toBe(200);
    });
  });
});

describe("guardrail webhooks", () => {
  const chat = PROTOCOLS[0]!;
  it("are signed like Events and can block the request", async () => {
    hookCalls.length = 0;
    const r = await call(chat, "a bomb please", false, "no", guards({ id: "hook", stage: "pre_request", type: "webhook", url: `${hookUrl}/block`, secret: HOOK_SECRET }));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error.message).toBe('Blocked by guardrail "hook": no bombs');
    expect(hookCalls[0]).toMatchObject({ signed: true, body: { guardrail: "hook", stage: "pre_request", organisation: "org_1", model: "m-openai" } });
    expect(hookCalls[0]!.body.request.messages[0].parts[0].text).toBe("a bomb please");
  });

  it("redact the literals they name, in a stream too", async () => {
    const r = await call(chat, "hi", true, "Ask Bob tomorrow", guards({ id: "hook", stage: "post_response", type: "webhook", url: `${hookUrl}/redact`, secret: HOOK_SECRET, stream: "buffer" }));
    expect(r.text).not.toContain("Bob");
    expect(r.text).toContain("[REDACTED]");
  });

  it.each([
    ["closed", "/slow", 400],
    ["open", "/slow", 200],
    ["closed", "/broken", 400],
    ["open", "/broken", 200],
  ] as const)("fail %s: a %s hook answers %d, logged and counted", async (failPolicy, path, status) => {
    const list = guards({ id: `hook-${failPolicy}`, stage: "post_response", type: "webhook", url: `${hookUrl}${path}`, secret: HOOK_SECRET, timeoutMs: 100, failPolicy });
    const started = performance.now();
    const r = await call(chat, "hi", false, "Hello", list);
    expect(performance.now() - started).toBeLessThan(900);
    expect(r.status).toBe(status);
    if (status === 400) expect(JSON.parse(r.text).error.message).toContain(path === "/slow" ? "timed out and it fails closed" : "failed and it fails closed");
  });

  it("fail closed by default, on a stream too", async () => {
    const r = await call(chat, "hi", true, "Hello there", guards({ id: "hook", stage: "post_response", type: "webhook", url: `${hookUrl}/slow`, secret: HOOK_SECRET, timeoutMs: 100 }));
    expect(r.text).not.toContain("Hello");
    expect(r.text).toContain("content_policy");
  });
});

describe("the registry", () => {
  it("with none configured answers null (the hot path checks one boolean); scopes by organisation", () => {
    installGuardrails(undefined);
    expect(guardrailsFor("org_1")).toBeNull();
    installGuardrails([guardrailSchema.parse({ id: "a", stage: "pre_request", type: "pii", organisations: ["org_2"] })]);
    expect(guardrailsFor("org_1")).toBeNull();
    expect(guardrailsFor("org_2")?.map((g) => g.id)).toEqual(["a"]);
    installGuardrails(undefined);
  });

  it("scopes by API key: a key-scoped guardrail applies to that key's requests only", () => {
    installGuardrails([guardrailSchema.parse({ id: "k", stage: "pre_request", type: "pii", keys: ["key_a"] }), guardrailSchema.parse({ id: "all", stage: "pre_request", type: "pii" })]);
    expect(guardrailsFor("org_1", "key_a")?.map((g) => g.id)).toEqual(["k", "all"]);
    expect(guardrailsFor("org_1", "key_b")?.map((g) => g.id)).toEqual(["all"]);
    expect(guardrailsFor("org_1", null)?.map((g) => g.id)).toEqual(["all"]);
    installGuardrails(undefined);
  });

  it("adds the stored (Admin) guardrails after the file's; the file wins for its ids; a disabled one is off", () => {
    const parse = (g: Record<string, unknown>) => guardrailSchema.parse(g);
    installGuardrails([parse({ id: "shared", stage: "pre_request", type: "regex", pattern: "file", action: "block" })]);
    installStoredGuardrails([
      parse({ id: "shared", stage: "pre_request", type: "regex", pattern: "stored", action: "block" }),
      parse({ id: "extra", stage: "pre_request", type: "pii" }),
      parse({ id: "off", stage: "pre_request", type: "pii", enabled: false }),
    ]);
    const list = guardrailsFor("org_1")!;
    expect(list.map((g) => g.id)).toEqual(["shared", "extra"]);
    expect(list[0]!.re!.source).toBe("file");
    installStoredGuardrails([]);
    expect(guardrailsFor("org_1")!.map((g) => g.id)).toEqual(["shared"]);
    installGuardrails(undefined);
    expect(guardrailsFor("org_1")).toBeNull();
  });
});
