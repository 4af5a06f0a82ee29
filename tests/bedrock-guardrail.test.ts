/**
 * A Bedrock guardrail set on the upstream (issue 34): every Converse call carries its
 * `guardrailConfig`, and a prompt it blocks — Bedrock's `guardrail_intervened` with the
 * guardrail's message — reaches each client protocol as its own content-filter stop, with the
 * guardrail's message as the answer's text. A `claudeApi: "invoke"` upstream with a guardrail
 * keeps Claude on Converse, where the guardrail is applied and its intervention reported.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BEDROCK_GUARDRAIL, BEDROCK_KEYS, BEDROCK_REGION, startFakeBedrock, type FakeBedrock } from "./fakes/bedrock-upstream";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import type { Inbound } from "./support/usage-shapes";

const PROFILE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

let fake: FakeBedrock;
let server: TestServer;
let key: string;

beforeAll(async () => {
  fake = await startFakeBedrock();
  const guardrail = { guardrailId: BEDROCK_GUARDRAIL.id, guardrailVersion: BEDROCK_GUARDRAIL.version, guardrailTrace: "enabled" };
  server = await startTestServer({
    config: {
      upstreams: [
        { id: "br-guard", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, ...BEDROCK_KEYS, ...guardrail, claudeApi: "invoke", timeoutMs: 5000 },
        { id: "br-guard-gone", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, ...BEDROCK_KEYS, guardrailId: "gr0gone", guardrailVersion: "3", timeoutMs: 5000 },
      ],
      models: [
        { id: "claude-guarded", kind: "text", upstream: "br-guard", upstreamModel: PROFILE, price: PRICE, maxOutputTokens: 1000 },
        { id: "claude-guard-gone", kind: "text", upstream: "br-guard-gone", upstreamModel: PROFILE, price: PRICE, maxOutputTokens: 1000 },
      ],
    },
  });
  ({ key } = await createAccount(server, { usd: 5 }));
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.script = { text: "A fine answer.", usage: { inputTokens: 20, outputTokens: 5 } };
});

function request(inbound: Inbound, prompt: string, stream: boolean, model = "claude-guarded"): { path: string; headers: Record<string, string>; body: unknown } {
  const bearer = { authorization: `Bearer ${key}` };
  switch (inbound) {
    case "chat":
      return { path: "/v1/chat/completions", headers: bearer, body: { model, messages: [{ role: "user", content: prompt }], stream } };
    case "responses":
      return { path: "/v1/responses", headers: bearer, body: { model, input: prompt, stream } };
    case "messages":
      return { path: "/v1/messages", headers: { "x-api-key": key, "anthropic-version": "2023-06-01" }, body: { model, max_tokens: 500, messages: [{ role: "user", content: prompt }], stream } };
    case "gemini":
      return { path: `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`, headers: { "x-goog-api-key": key }, body: { contents: [{ role: "user", parts: [{ text: prompt }] }] } };
  }
}

async function call(inbound: Inbound, prompt: string, stream: boolean, model?: string) {
  const r = request(inbound, prompt, stream, model);
  const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", ...r.headers }, body: JSON.stringify(r.body) });
  return { res, text: await res.text() };
}

/** How each protocol says "stopped by a content filter". */
const FILTER_STOP: Record<Inbound, RegExp> = {
  chat: /"finish_reason":"content_filter"/,
  responses: /"reason":"content_filter"/,
  messages: /"stop_reason":"refusal"/,
  gemini: /"finishReason":"SAFETY"/,
};

const CASES: Array<[Inbound, boolean]> = [];
for (const inbound of ["chat", "responses", "messages", "gemini"] as const) for (const stream of [false, true]) CASES.push([inbound, stream]);

describe("Bedrock guardrails", () => {
  it.each(CASES)("%s client, stream %s: a blocked prompt is the protocol's content-filter stop with the guardrail's message", async (inbound, stream) => {
    const { res, text } = await call(inbound, `Tell me about the ${BEDROCK_GUARDRAIL.deniedTopic}.`, stream);
    expect(res.status, text).toBe(200);
    const sent = fake.requests[0]!;
    expect(sent.path).toMatch(/\/converse(-stream)?$/);
    expect(sent.body.guardrailConfig).toEqual({ guardrailIdentifier: BEDROCK_GUARDRAIL.id, guardrailVersion: BEDROCK_GUARDRAIL.version, trace: "enabled" });
    expect(text).toMatch(FILTER_STOP[inbound]);
    expect(text).toContain(stream ? "cannot" : BEDROCK_GUARDRAIL.blockedMessage);
    // The guardrail's trace is the operator's business, not the client's.
    expect(text).not.toContain("topicPolicy");
  });

  it("an allowed prompt is answered as usual, the guardrail still attached", async () => {
    const { res, text } = await call("chat", "Hello", false);
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text).choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "A fine answer." } });
    expect(fake.requests[0]!.body.guardrailConfig.guardrailIdentifier).toBe(BEDROCK_GUARDRAIL.id);
  });

  it("a guardrail that does not exist: Bedrock's refusal, in the client's error shape, naming it", async () => {
    const { res, text } = await call("messages", "Hello", false, "claude-guard-gone");
    expect(res.status, text).toBe(404);
    expect(JSON.parse(text)).toMatchObject({ type: "error", error: { message: expect.stringMatching(/guardrail identifier or version/) } });
  });
});
