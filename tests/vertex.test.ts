/**
 * Google Vertex AI upstreams (issue 34) through the real server: the gateway signs a JWT with the
 * service account's key and trades it at the token endpoint (the fake verifies the RS256
 * signature with the account's public key), caches the token, and calls Gemini on Vertex paths
 * and Claude through the Anthropic publisher (rawPredict / streamRawPredict, `anthropic_version:
 * vertex-2023-10-16`, no `model` in the body) for every client protocol, billed as reported.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatUsd } from "../lib/billing/money";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { serviceAccountKey, startFakeGoogleOAuth, startFakeVertex, STRANGER_KEY, VERTEX_PROJECT, VERTEX_REGION, type FakeGoogleOAuth } from "./fakes/vertex-upstream";
import { createAccount } from "./support/accounts";
import { logRowOf } from "./support/log-rows";
import { startTestServer, type TestServer } from "./support/server";
import { sseEvents, type Inbound } from "./support/usage-shapes";

let vertex: FakeTextUpstream;
let oauth: FakeGoogleOAuth;
let server: TestServer;
let key: string;
const PRICE = { inputPerMTok: 1, outputPerMTok: 4 };

beforeAll(async () => {
  vertex = await startFakeVertex();
  oauth = await startFakeGoogleOAuth();
  const upstream = (id: string, sa: Record<string, string>) => ({ id, protocol: "vertex", baseUrl: vertex.baseUrl, project: VERTEX_PROJECT, region: VERTEX_REGION, serviceAccount: sa, timeoutMs: 5000 });
  server = await startTestServer({
    config: {
      upstreams: [upstream("vx", serviceAccountKey(oauth.tokenUrl)), upstream("vx-stranger", serviceAccountKey(oauth.tokenUrl, STRANGER_KEY))],
      models: [
        { id: "gemini-vx", kind: "text", upstream: "vx", upstreamModel: "gemini-2.5-pro", price: PRICE },
        { id: "claude-vx", kind: "text", upstream: "vx", upstreamModel: "claude-sonnet-4-5@20250929", price: PRICE },
        { id: "gemini-stranger", kind: "text", upstream: "vx-stranger", upstreamModel: "gemini-2.5-pro", price: PRICE },
      ],
    },
  });
  ({ key } = await createAccount(server, { usd: 10 }));
});
afterAll(async () => {
  await server?.dispose();
  await vertex?.close();
  await oauth?.close();
});
beforeEach(() => vertex.reset({ text: "Hello from Vertex.", usage: { input: 40, output: 10 } }));

function request(inbound: Inbound, model: string, stream: boolean): { path: string; headers: Record<string, string>; body: unknown } {
  const bearer = { authorization: `Bearer ${key}` };
  switch (inbound) {
    case "chat":
      return { path: "/v1/chat/completions", headers: bearer, body: { model, max_tokens: 100, messages: [{ role: "user", content: "Hi" }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) } };
    case "responses":
      return { path: "/v1/responses", headers: bearer, body: { model, max_output_tokens: 100, input: "Hi", stream } };
    case "messages":
      return { path: "/v1/messages", headers: { "x-api-key": key, "anthropic-version": "2023-06-01" }, body: { model, max_tokens: 100, messages: [{ role: "user", content: "Hi" }], stream } };
    case "gemini":
      return { path: `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`, headers: { "x-goog-api-key": key }, body: { contents: [{ role: "user", parts: [{ text: "Hi" }] }], generationConfig: { maxOutputTokens: 100 } } };
  }
}

async function call(inbound: Inbound, model: string, stream: boolean) {
  const r = request(inbound, model, stream);
  const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", ...r.headers }, body: JSON.stringify(r.body) });
  return { res, text: await res.text() };
}

/** The answer's text, whichever protocol and framing. */
function answer(inbound: Inbound, stream: boolean, text: string): string {
  if (!stream) {
    const j = JSON.parse(text);
    return inbound === "chat" ? j.choices[0].message.content : inbound === "messages" ? j.content[0].text : inbound === "gemini" ? j.candidates[0].content.parts.map((p: any) => p.text).join("") : j.output.find((o: any) => o.type === "message").content[0].text;
  }
  const evs = sseEvents(text);
  if (inbound === "chat") return evs.map((e) => e.data.choices?.[0]?.delta?.content ?? "").join("");
  if (inbound === "messages") return evs.map((e) => e.data.delta?.text ?? "").join("");
  if (inbound === "gemini") return evs.map((e) => (e.data.candidates?.[0]?.content?.parts ?? []).map((p: any) => p.text ?? "").join("")).join("");
  return evs.filter((e) => e.data.type === "response.output_text.delta").map((e) => e.data.delta).join("");
}

const CHARGE = 40 * 1 + 10 * 4;
const CASES: Array<["gemini-vx" | "claude-vx", Inbound, boolean]> = [];
for (const model of ["gemini-vx", "claude-vx"] as const) for (const inbound of ["chat", "responses", "messages", "gemini"] as const) for (const stream of [false, true]) CASES.push([model, inbound, stream]);

describe("Vertex AI through every client protocol", () => {
  it.each(CASES)("%s, %s client, stream %s: the publisher's path, the bearer token, the answer and the charge", async (model, inbound, stream) => {
    const { res, text } = await call(inbound, model, stream);
    expect(res.status, text).toBe(200);
    expect(answer(inbound, stream, text)).toBe("Hello from Vertex.");
    const sent = vertex.generationRequests()[0]!;
    const base = `/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_REGION}/publishers`;
    if (model === "gemini-vx") expect(sent.path).toBe(`${base}/google/models/gemini-2.5-pro:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`);
    else {
      expect(sent.path).toBe(`${base}/anthropic/models/${encodeURIComponent("claude-sonnet-4-5@20250929")}:${stream ? "streamRawPredict" : "rawPredict"}`);
      expect(sent.body.anthropic_version).toBe("vertex-2023-10-16");
      expect(sent.body).not.toHaveProperty("model");
    }
    expect(sent.headers.authorization).toBe("Bearer ya29.fake-vertex-access-token");
    if (!stream) expect(res.headers.get("x-gateway-cost-usd")).toBe(formatUsd(CHARGE));
    const row = await logRowOf(server, res.headers.get("x-request-id")!);
    if (row) expect(row).toMatchObject({ upstream_protocol: "vertex", input_tokens: 40, output_tokens: 10 });
  });

  it("the token was fetched once, with a JWT the endpoint verified against the service account's public key", () => {
    const accepted = oauth.requests.filter((r) => r.accepted);
    expect(accepted.length).toBe(1);
    expect(accepted[0]!.claims).toMatchObject({ iss: `gateway@${VERTEX_PROJECT}.iam.gserviceaccount.com`, aud: oauth.tokenUrl, scope: "https://www.googleapis.com/auth/cloud-platform" });
  });

  it("a key Google does not know: the token endpoint refuses the signature, the client gets a 502, nothing reaches Vertex", async () => {
    const { res, text } = await call("chat", "gemini-stranger", false);
    expect(res.status).toBe(502);
    expect(text).toMatch(/service-account token/);
    expect(text).not.toMatch(/PRIVATE KEY/);
    expect(vertex.generationRequests()).toHaveLength(0);
    expect(oauth.requests.at(-1)!.accepted).toBe(false);
  });
});
