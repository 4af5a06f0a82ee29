/**
 * OpenAI-compatible vendors (issue 34): each vendor's answer (public recordings where they
 * exist, else reconstructions from its docs: tests/fakes/vendor-recordings.ts) replayed through
 * all four client protocols, JSON and streamed. The client's usage and our charge must equal what
 * the vendor billed, reasoning included (xAI counts it outside completion_tokens: the recorded
 * charges prove it is billed on top), and a reasoning request must reach each vendor in its own
 * form (thinking switch, output-cap name, no field it refuses).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsd } from "../lib/billing/money";
import { RECORDINGS, startVendorFake, VENDOR_FAKE_KEY, type VendorFake } from "./fakes/vendor-recordings";
import { createAccount } from "./support/accounts";
import { logRowOf } from "./support/log-rows";
import { startTestServer, type TestServer } from "./support/server";
import { clientUsage, expectedUsage, sseEvents, type Inbound } from "./support/usage-shapes";

type Vendor = keyof typeof RECORDINGS;
const VENDORS = Object.keys(RECORDINGS) as Vendor[];
const INBOUND: Inbound[] = ["chat", "responses", "messages", "gemini"];

let fake: VendorFake;
let server: TestServer;
let key: string;

beforeAll(async () => {
  fake = await startVendorFake();
  server = await startTestServer({
    config: {
      upstreams: VENDORS.map((v) => ({ id: v, protocol: "openai", vendor: v, baseUrl: `${fake.url}/${v}/v1`, apiKey: VENDOR_FAKE_KEY, timeoutMs: 5000 })),
      models: VENDORS.map((v) => ({ id: `m-${v}`, kind: "text", upstream: v, upstreamModel: RECORDINGS[v].model, price: RECORDINGS[v].price })),
    },
  });
  ({ key } = await createAccount(server, { usd: 10 }));
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});

/** A request asking for reasoning, in each client's own words. */
function request(inbound: Inbound, model: string, stream: boolean): { path: string; headers: Record<string, string>; body: unknown } {
  const bearer = { authorization: `Bearer ${key}` };
  const prompt = "What is 17 × 23?";
  switch (inbound) {
    case "chat":
      return {
        path: "/v1/chat/completions",
        headers: bearer,
        body: { model, max_completion_tokens: 4000, reasoning_effort: "high", messages: [{ role: "user", content: prompt }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) },
      };
    case "responses":
      return { path: "/v1/responses", headers: bearer, body: { model, max_output_tokens: 4000, reasoning: { effort: "high" }, input: prompt, stream } };
    case "messages":
      return {
        path: "/v1/messages",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
        body: { model, max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 2048 }, messages: [{ role: "user", content: prompt }], stream },
      };
    case "gemini":
      return {
        path: `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
        headers: { "x-goog-api-key": key },
        body: { contents: [{ role: "user", parts: [{ text: prompt }] }], generationConfig: { maxOutputTokens: 4000, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } } },
      };
  }
}

const logRow = (requestId: string) => logRowOf(server, requestId);

/** The switch each vendor's thinking takes (openai-vendors.ts), as the vendor received it. */
const THINKING: Record<Vendor, (body: Record<string, any>) => unknown> = {
  xai: (b) => b.reasoning_effort, // grok-3-mini: low | high
  mistral: (b) => b.reasoning_effort,
  deepseek: (b) => b.thinking?.type,
  qwen: (b) => b.enable_thinking,
  moonshot: (b) => b.thinking?.type,
  zhipu: (b) => b.thinking?.type,
  groq: (b) => b.reasoning_effort,
  together: (b) => b.reasoning_effort,
  fireworks: (b) => b.reasoning_effort,
  openrouter: (b) => b.reasoning?.effort ?? b.reasoning?.max_tokens,
};
const MAX_TOKENS_FIELD: Record<Vendor, string> = {
  xai: "max_completion_tokens",
  groq: "max_completion_tokens",
  mistral: "max_tokens",
  deepseek: "max_tokens",
  qwen: "max_tokens",
  moonshot: "max_tokens",
  zhipu: "max_tokens",
  together: "max_tokens",
  fireworks: "max_tokens",
  openrouter: "max_tokens",
};

const CASES: Array<[Vendor, Inbound, boolean]> = [];
for (const v of VENDORS) for (const inbound of INBOUND) for (const stream of [false, true]) CASES.push([v, inbound, stream]);

describe("OpenAI-compatible vendors: usage and charge as the vendor billed, through every client protocol", () => {
  it.each(CASES)("%s → %s client, stream %s", async (vendor, inbound, stream) => {
    const rec = RECORDINGS[vendor];
    const mode = stream ? "stream" : "json";
    const r = request(inbound, `m-${vendor}`, stream);
    const before = fake.received.get(vendor)?.length ?? 0;
    const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", ...r.headers }, body: JSON.stringify(r.body) });
    const text = await res.text();
    expect(res.status, text).toBe(200);

    // What the vendor received: its own thinking switch, its cap field, nothing it refuses (the fake would 400).
    const sent = fake.received.get(vendor)![before]!;
    expect(THINKING[vendor](sent), JSON.stringify(sent)).toBeTruthy();
    expect(sent[MAX_TOKENS_FIELD[vendor]]).toBe(4000);
    if (MAX_TOKENS_FIELD[vendor] === "max_tokens") expect(sent.max_completion_tokens).toBeUndefined();

    // The client's usage in its protocol's shape, with the vendor's billed classes; never the vendor's own cost.
    const b = rec.billed[mode];
    const usage = clientUsage(inbound, stream, text);
    expect(usage).toMatchObject(expectedUsage(inbound, { ...b, cacheWrite5m: 0, cacheWrite1h: 0 }, { sparse: true }));
    if (inbound === "chat") {
      expect(usage).not.toHaveProperty("cost_in_usd_ticks");
      expect(usage).not.toHaveProperty("cost");
      expect(usage.cost_usd).toBe(rec.charge[mode] / 1e6);
    }
    if (!stream) expect(res.headers.get("x-gateway-cost-usd")).toBe(formatUsd(rec.charge[mode]));

    const row = await logRow(res.headers.get("x-request-id")!);
    if (row) {
      expect(Number(row.cost_micro_usd)).toBe(rec.charge[mode]);
      expect(row).toMatchObject({ settlement: "completed", input_tokens: b.input, output_tokens: b.output, cache_read_tokens: b.cacheRead, reasoning_tokens: b.reasoning });
      // The vendor's own charge, where it reports one, sits beside ours on the log row: equal here.
      expect(row.usage_note).toBe(rec.reported ? `upstream charged ${rec.reported[mode]} µUSD` : null);
    }
  });

  it("the reasoning text reaches an Anthropic client as a thinking block, from each vendor's own field", async () => {
    for (const vendor of ["deepseek", "groq", "mistral", "openrouter"] as const) {
      const r = request("messages", `m-${vendor}`, false);
      const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", ...r.headers }, body: JSON.stringify(r.body) });
      const j = await res.json();
      expect(j.content.find((c: any) => c.type === "thinking")?.thinking, vendor).toBe(RECORDINGS[vendor].reasoning);
      expect(j.content.find((c: any) => c.type === "text")?.text, vendor).toBe(RECORDINGS[vendor].text);
    }
  });

  it("Mistral's streamed thinking chunks become reasoning, then the answer, in order", async () => {
    const r = request("messages", "m-mistral", true);
    const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", ...r.headers }, body: JSON.stringify(r.body) });
    const evs = sseEvents(await res.text());
    const thinking = evs.filter((e) => e.data.delta?.type === "thinking_delta").map((e) => e.data.delta.thinking).join("");
    const answer = evs.filter((e) => e.data.delta?.type === "text_delta").map((e) => e.data.delta.text).join("");
    expect(thinking).toBe("Okay, the user is asking for the product of 17 and 23. 340 + 51 = 391.1.");
    expect(answer).toBe("391");
  });

  it("xAI's reasoning models refuse stop: a 400 naming it, before any money moves", async () => {
    const res = await fetch(`${server.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ model: "m-xai", input: "hi", max_output_tokens: 100 }) });
    expect(res.status).toBe(200); // no stop: served
    const stopped = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "m-xai", max_tokens: 100, stop_sequences: ["END"], messages: [{ role: "user", content: "hi" }] }),
    });
    expect(stopped.status).toBe(400);
    expect((await stopped.json()).error.message).toMatch(/stop_sequences/);
  });
});
