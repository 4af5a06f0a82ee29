/**
 * Issue 41 through the real server (config file → start → /v1 → the books): guardrails named in
 * the config block before any money moves, block answers at the upstream's charge, redact so no
 * stored row holds the match; the response cache serves a hit at $0 with its saving on the log
 * row, never across organisations. The demo upstream echoes the prompt's first words, so what
 * it answers shows what it received.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifySignature } from "../lib/tasks/webhook-signature";
import { formatUsd } from "../lib/billing/money";
import { demoCatalog } from "../lib/config/demo-catalog";
import { balanceUsd, createAccount } from "./support/accounts";
import { logRowOf } from "./support/log-rows";
import { until } from "./support/until";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let server: TestServer;
let key: string;
let email: string;
const EMAIL = "carol.jones@example.org";
const HOOK_SECRET = "whsec_integration_guardrail";
let hook: Server;
const hookCalls: { signed: boolean; body: any }[] = [];

beforeAll(async () => {
  // A policy service: blocks answers that mention "Paris", checks the signature.
  hook = createServer(async (req, res) => {
    let raw = "";
    for await (const c of req) raw += c;
    const body = JSON.parse(raw);
    hookCalls.push({ signed: verifySignature(req.headers["x-shim-signature"] as string, raw, HOOK_SECRET).ok, body });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(/Paris/.test(body.text) ? { verdict: "block", reason: "no capitals" } : { verdict: "allow" }));
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/check`;
  server = await startTestServer({
    config: {
      ...demoCatalog,
      // The same model under a second id, which only the webhook hook covers.
      models: [...demoCatalog.models, { ...demoCatalog.models[0]!, id: "demo-guarded" }],
      guardrails: [
        { id: "policy", stage: "post_response", type: "webhook", url: hookUrl, secret: HOOK_SECRET, timeoutMs: 2000, models: ["demo-guarded"] },
        { id: "no-forbidden", stage: "pre_request", type: "regex", pattern: "\\bforbidden\\b", action: "block" },
        { id: "pii-in", stage: "pre_request", type: "pii" },
        { id: "no-blockme", stage: "post_response", type: "regex", pattern: "BLOCKME", action: "block", stream: "holdback", holdback: 16 },
      ],
    },
  });
  ({ key, email } = await createAccount(server, { usd: 5 }));
});
afterAll(async () => {
  await server?.dispose();
  hook?.closeAllConnections();
  await new Promise((r) => hook?.close(r));
});

async function chat(k: string, content: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const r = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${k}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "demo-chat", temperature: 0, messages: [{ role: "user", content }], ...extra }),
  });
  return { status: r.status, headers: r.headers, text: await r.text(), requestId: r.headers.get("x-request-id")! };
}

describe.skipIf(!usesPostgres())("guardrails from the config file", () => {
  it("a pre_request block: 400 content_policy, nothing charged, the row names it", async () => {
    const before = await balanceUsd(server, email);
    const r = await chat(key, "tell me the forbidden thing");
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toMatchObject({ code: "content_policy", message: expect.stringContaining('"no-forbidden"') });
    expect(r.headers.get("x-gateway-guardrails")).toContain("blocked by no-forbidden");
    const row = await logRowOf(server, r.requestId);
    expect(row).toMatchObject({ settlement: "rejected", error_code: "content_policy", cost_micro_usd: "0" });
    expect(row!.guardrails).toContain("blocked by no-forbidden (pre_request)");
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("a pre_request redaction: the upstream and every stored row see the mask, never the match", async () => {
    const r = await chat(key, `forward this to ${EMAIL} now`);
    expect(r.status).toBe(200);
    expect(r.text).toContain("[REDACTED]");
    expect(r.text).not.toContain(EMAIL);
    const row = await logRowOf(server, r.requestId);
    expect(row!.guardrails).toContain("redacted by pii-in (pre_request)");
    const leaks = await server.query("select count(*)::int as n from request_logs where row_to_json(request_logs)::text like $1", [`%${EMAIL}%`]);
    expect(leaks[0]).toMatchObject({ n: 0 });
  });

  it("a post_response block costs what the upstream charged, and the books say so", async () => {
    const before = await balanceUsd(server, email);
    const r = await chat(key, "please say BLOCKME back");
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error.code).toBe("content_policy");
    const row = await logRowOf(server, r.requestId);
    expect(row).toMatchObject({ settlement: "guardrail_blocked", error_code: "content_policy" });
    expect(Number(row!.cost_micro_usd)).toBeGreaterThan(0);
    expect(row!.guardrails).toContain("blocked by no-blockme (post_response)");
    expect(Math.round((before - (await balanceUsd(server, email))) * 1e6)).toBe(Number(row!.cost_micro_usd));
  });

  it("a webhook hook is called signed, on the client's signal, and its block reaches the client (whole and streamed)", async () => {
    const whole = await chat(key, "what is the capital of France, Paris?", { model: "demo-guarded" });
    expect(whole.status).toBe(400);
    expect(JSON.parse(whole.text).error.message).toBe('Blocked by guardrail "policy": no capitals');
    expect(hookCalls.at(-1)).toMatchObject({ signed: true, body: { guardrail: "policy", stage: "post_response", model: "demo-guarded", final: true } });
    const streamed = await chat(key, "what is the capital of France, Paris?", { model: "demo-guarded", stream: true });
    expect(streamed.text).not.toContain("Paris");
    expect(streamed.text).toContain("no capitals");
    const fine = await chat(key, "hello there", { model: "demo-guarded" });
    expect(fine.status).toBe(200);
    expect(fine.headers.get("x-gateway-guardrails")).toContain("post=policy,no-blockme");
  });

  it("a streamed post_response block ends the stream with the error event and no [DONE]", async () => {
    const r = await chat(key, "please say BLOCKME back", { stream: true });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-gateway-guardrails")).toBe("pre=no-forbidden,pii-in; post=no-blockme (holdback 16)");
    expect(r.text).not.toContain("BLOCKME");
    expect(r.text).toContain("content_policy");
    expect(r.text).not.toContain("[DONE]");
  });
});

describe.skipIf(!usesPostgres())("the response cache", () => {
  const cachedRows = async () => Number((await server.query("select count(*)::int as n from response_cache"))[0]!.n);
  /** The miss's answer is written after its reply: a request sent before it lands is a miss too, and its answer would replace the first. */
  const stored = (before: number) => until(cachedRows, (n) => n > before, 5_000, 50);

  it("a hit costs $0, says what it saved, and the row carries saved_usd", async () => {
    const prompt = "cache me please";
    const rows = await cachedRows();
    const miss = await chat(key, prompt, {}, { "x-gateway-cache": "on" });
    expect(miss.headers.get("x-gateway-cache")).toBe("miss");
    await logRowOf(server, miss.requestId);
    await stored(rows);
    const before = await balanceUsd(server, email);
    const hit = await chat(key, prompt, {}, { "x-gateway-cache": "on" });
    expect(hit.headers.get("x-gateway-cache")).toBe("hit");
    expect(hit.headers.get("x-gateway-cost-usd")).toBe("0.00");
    // The same answer, except that it says what it cost: nothing.
    const [missBody, hitBody] = [JSON.parse(miss.text), JSON.parse(hit.text)];
    expect(missBody.usage.cost_usd).toBeGreaterThan(0);
    expect(hitBody).toEqual({ ...missBody, usage: { ...missBody.usage, cost_usd: 0 } });
    const missRow = await logRowOf(server, miss.requestId);
    const hitRow = await logRowOf(server, hit.requestId);
    expect(hitRow).toMatchObject({ settlement: "cache_hit", cost_micro_usd: "0", saved_micro_usd: missRow!.cost_micro_usd });
    expect(hit.headers.get("x-gateway-saved-usd")).toBe(formatUsd(Number(missRow!.cost_micro_usd)));
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("a streamed hit replays the same events, its usage saying $0", async () => {
    const opts = { stream: true, stream_options: { include_usage: true } };
    const prompt = "cache this stream please";
    const rows = await cachedRows();
    const miss = await chat(key, prompt, opts, { "x-gateway-cache": "on" });
    expect(miss.headers.get("x-gateway-cache")).toBe("miss");
    await logRowOf(server, miss.requestId);
    await stored(rows);
    const hit = await chat(key, prompt, opts, { "x-gateway-cache": "on" });
    expect(hit.headers.get("x-gateway-cache")).toBe("hit");
    const usageOf = (text: string) => text.split("\n").filter((l) => l.startsWith("data: {")).map((l) => JSON.parse(l.slice(6))).find((c) => c.usage)?.usage;
    expect(usageOf(miss.text).cost_usd).toBeGreaterThan(0);
    expect(usageOf(hit.text)).toEqual({ ...usageOf(miss.text), cost_usd: 0 });
    expect(hit.text.replace(/"cost_usd":[0-9.e-]+/, "")).toBe(miss.text.replace(/"cost_usd":[0-9.e-]+/, ""));
  });

  it("never crosses organisations; a key set to `on` caches without the header", async () => {
    const other = await createAccount(server, { usd: 1, keyArgs: ["--cache", "on"] });
    const prompt = "cache me please";
    const first = await chat(other.key, prompt);
    expect(first.headers.get("x-gateway-cache")).toBe("miss");
    let again = await chat(other.key, prompt);
    for (let i = 0; i < 20 && again.headers.get("x-gateway-cache") !== "hit"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await chat(other.key, prompt);
    }
    expect(again.headers.get("x-gateway-cache")).toBe("hit");
    expect((await logRowOf(server, again.requestId))!.account_id).toBe((await logRowOf(server, first.requestId))!.account_id);
  });
});

describe.skipIf(!usesPostgres())("the response cache on Redis", () => {
  let redisServer: TestServer | undefined;
  afterAll(async () => {
    await redisServer?.dispose();
  });

  it("keeps entries in Redis (sealed) when REDIS_URL is set, not in the table", async () => {
    redisServer = await startTestServer({ env: { REDIS_URL: "redis://127.0.0.1:6379/0" } });
    const { key: k } = await createAccount(redisServer, { usd: 1, keyArgs: ["--cache", "on"] });
    const call = () =>
      fetch(`${redisServer!.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${k}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "demo-chat", temperature: 0, messages: [{ role: "user", content: "redis please" }] }),
      });
    const miss = await call();
    expect(miss.headers.get("x-gateway-cache")).toBe("miss");
    let hit = await call();
    for (let i = 0; i < 20 && hit.headers.get("x-gateway-cache") !== "hit"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      hit = await call();
    }
    expect(hit.headers.get("x-gateway-cache")).toBe("hit");
    const missBody = await miss.json();
    expect(await hit.json()).toEqual({ ...missBody, usage: { ...missBody.usage, cost_usd: 0 } });
    expect(await redisServer.query("select count(*)::int as n from response_cache")).toEqual([{ n: 0 }]);
  });
});
