/**
 * Fake Amazon Bedrock Runtime (docs.aws.amazon.com/bedrock/latest/APIReference, Converse,
 * ConverseStream, InvokeModel and InvokeModelWithResponseStream): POST /model/{modelId}/converse,
 * /converse-stream, /invoke and /invoke-with-response-stream. It checks what AWS
 * checks: the SigV4 signature, recomputed here with the AWS SDK's own signer from the request
 * as received (a wrong key, a tampered body or an unsigned header is AWS's 403
 * InvalidSignatureException), the session token when the keys are temporary, and the region in
 * the credential scope. Streams are AWS's binary event stream, encoded with the SDK's codec.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { SignatureV4 } from "@smithy/signature-v4";
import { Sha256 } from "../../lib/gateway/upstreams/bedrock-auth";

export const BEDROCK_KEYS = { accessKeyId: "AKIAFAKEBEDROCK00001", secretAccessKey: "fake/bedrock/secret/access/key/000000001" };
export const BEDROCK_TEMP_KEYS = { accessKeyId: "ASIAFAKEBEDROCK00002", secretAccessKey: "fake/bedrock/temporary/secret/0000000002", sessionToken: "FwoGZXIvYXdzEFAKESESSIONTOKEN" };
export const BEDROCK_REGION = "us-west-2";
/** The one guardrail the fake account has: it blocks any prompt naming its denied topic. */
export const BEDROCK_GUARDRAIL = { id: "gr0fake1abcd", version: "1", deniedTopic: "forbidden topic", blockedMessage: "Sorry, the model cannot answer this question." };

export interface BedrockScript {
  text: string;
  reasoning?: string;
  toolCall?: { name: string; input: Record<string, unknown> };
  /** Converse: several calls in one answer (instead of `toolCall`). */
  toolCalls?: Array<{ name: string; input: Record<string, unknown> }>;
  usage: { inputTokens: number; outputTokens: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number };
  /** A ThrottlingException in the middle of the stream. */
  streamException?: boolean;
}

export interface FakeBedrock {
  baseUrl: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any; signatureOk: boolean; answered?: BedrockScript["usage"] }>;
  script: BedrockScript;
  /** Decides each text answer from the request instead of `script` (an agent's turns); `api` says which body it is. */
  brain?: (body: any, api: "converse" | "invoke") => BedrockScript;
  close(): Promise<void>;
}

const codec = new EventStreamCodec((b) => new TextDecoder().decode(b), (s) => new TextEncoder().encode(s));
const frame = (eventType: string, payload: unknown, messageType = "event") =>
  codec.encode({
    headers: {
      ":message-type": { type: "string", value: messageType },
      [messageType === "exception" ? ":exception-type" : ":event-type"]: { type: "string", value: eventType },
      ":content-type": { type: "string", value: "application/json" },
    },
    body: new TextEncoder().encode(JSON.stringify(payload)),
  });

/** Recomputes the signature of the request as received, with the secret of the key it names. */
async function verify(req: http.IncomingMessage, body: Buffer): Promise<boolean> {
  const auth = String(req.headers.authorization ?? "");
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/bedrock\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return false;
  const [, keyId, , region, signedHeaders, signature] = m;
  const keys = [BEDROCK_KEYS, BEDROCK_TEMP_KEYS].find((k) => k.accessKeyId === keyId);
  if (!keys || region !== BEDROCK_REGION) return false;
  if ("sessionToken" in keys && req.headers["x-amz-security-token"] !== keys.sessionToken) return false;
  const headers: Record<string, string> = {};
  for (const h of signedHeaders!.split(";")) headers[h] = String(req.headers[h] ?? "");
  const url = new URL(req.url!, `http://${req.headers.host}`);
  const signer = new SignatureV4({ credentials: keys, region: BEDROCK_REGION, service: "bedrock", sha256: Sha256 });
  const date = String(req.headers["x-amz-date"]);
  const signingDate = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  const signed = await signer.sign(
    { method: req.method!, protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: body.length ? body : undefined },
    { signingDate },
  );
  return String(signed.headers.authorization).endsWith(`Signature=${signature}`);
}

type Reply = (status: number, v: unknown, type?: string) => void;

/** The fake's token count: one token per whitespace-separated word, plus one. */
export const fakeEmbedTokens = (text: string) => text.split(/\s+/).filter(Boolean).length + 1;
/** A deterministic vector for a text (its length in the first component). */
export const fakeVector = (text: string, dims: number) => Array.from({ length: dims }, (_, i) => (i === 0 ? text.length : (i % 7) / 10));

/**
 * Titan Text Embeddings (v2: {inputText, dimensions 256/512/1024, normalize}) and Cohere Embed
 * ({texts ≤ 96, input_type required, embedding_types}), as Bedrock validates them; Titan reports
 * `inputTextTokenCount` in the body, Cohere only the `x-amzn-bedrock-input-token-count` header.
 */
function embed(modelId: string, body: any, res: http.ServerResponse, json: Reply): void {
  const malformed = (why: string) => json(400, { message: `Malformed input request: ${why}, please reformat your input and try again.` }, "ValidationException");
  if (modelId.startsWith("amazon.titan-embed-text-v2")) {
    for (const k of Object.keys(body ?? {})) if (!["inputText", "dimensions", "normalize", "embeddingTypes"].includes(k)) return malformed(`#: extraneous key [${k}] is not permitted`);
    if (typeof body?.inputText !== "string" || !body.inputText) return malformed("#: required key [inputText] not found");
    const dims = body.dimensions ?? 1024;
    if (![256, 512, 1024].includes(dims)) return malformed(`#/dimensions: ${dims} is not a valid enum value`);
    const tokens = fakeEmbedTokens(body.inputText);
    res.writeHead(200, { "content-type": "application/json", "x-amzn-bedrock-input-token-count": String(tokens), "x-amzn-requestid": "req-fake-titan" });
    res.end(JSON.stringify({ embedding: fakeVector(body.inputText, dims), embeddingsByType: { float: fakeVector(body.inputText, dims) }, inputTextTokenCount: tokens }));
    return;
  }
  if (modelId.startsWith("cohere.embed")) {
    if (!Array.isArray(body?.texts) || body.texts.length === 0) return malformed("#: required key [texts] not found");
    if (body.texts.length > 96) return malformed(`#/texts: expected maximum item count: 96, found: ${body.texts.length}`);
    if (typeof body.input_type !== "string") return malformed("#: required key [input_type] not found");
    const v4 = modelId.startsWith("cohere.embed-v4");
    if (body.output_dimension !== undefined && (!v4 || ![256, 512, 1024, 1536].includes(body.output_dimension))) return malformed("#/output_dimension: not a valid value");
    const dims = body.output_dimension ?? (v4 ? 1536 : 1024);
    const vectors = body.texts.map((t: string) => fakeVector(t, dims));
    const tokens = body.texts.reduce((n: number, t: string) => n + fakeEmbedTokens(t), 0);
    const typed = Array.isArray(body.embedding_types);
    res.writeHead(200, { "content-type": "application/json", "x-amzn-bedrock-input-token-count": String(tokens), "x-amzn-requestid": "req-fake-cohere" });
    res.end(JSON.stringify({ id: "emb-fake-1", texts: body.texts, embeddings: typed ? { float: vectors } : vectors, response_type: typed ? "embeddings_by_type" : "embeddings_floats" }));
    return;
  }
  json(404, { message: "The provided model identifier is invalid." }, "ResourceNotFoundException");
}

/**
 * InvokeModel / InvokeModelWithResponseStream with Anthropic's Messages body
 * (docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html):
 * `anthropic_version` must be bedrock-2023-05-31, `model` and `stream` are refused as extraneous
 * keys, `max_tokens` and `messages` are required. The answer is Anthropic's Message with Bedrock's
 * token-count headers; a stream is `chunk` events whose `bytes` are each Anthropic event's JSON in
 * base64, the last (message_stop) with `amazon-bedrock-invocationMetrics`.
 */
function invoke(s: BedrockScript, body: any, stream: boolean, res: http.ServerResponse, json: Reply): void {
  const malformed = (why: string) => json(400, { message: `Malformed input request: ${why}, please reformat your input and try again.` }, "ValidationException");
  if (!body || typeof body !== "object") return malformed("#: expected type: JSONObject");
  for (const k of ["model", "stream"]) if (k in body) return malformed(`#: extraneous key [${k}] is not permitted`);
  if (body.anthropic_version !== "bedrock-2023-05-31") return malformed("#/anthropic_version: bedrock-2023-05-31 expected");
  if (typeof body.max_tokens !== "number") return malformed("#: required key [max_tokens] not found");
  if (!Array.isArray(body.messages) || !body.messages.length) return malformed("#/messages: expected minimum item count: 1");
  const u = s.usage;
  const usage = {
    input_tokens: u.inputTokens,
    cache_creation_input_tokens: u.cacheWriteInputTokens ?? 0,
    cache_read_input_tokens: u.cacheReadInputTokens ?? 0,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWriteInputTokens ?? 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: u.outputTokens,
  };
  const stopReason = s.toolCall ? "tool_use" : "end_turn";
  const content: unknown[] = [];
  if (s.reasoning) content.push({ type: "thinking", thinking: s.reasoning, signature: "fake-bedrock-anthropic-signature" });
  if (s.text) content.push({ type: "text", text: s.text });
  if (s.toolCall) content.push({ type: "tool_use", id: "toolu_bdrk_fake1", name: s.toolCall.name, input: s.toolCall.input });
  const id = "msg_bdrk_01FakeInvoke";
  const model = "claude-sonnet-4-5-20250929";
  const counts = { "x-amzn-bedrock-input-token-count": String(u.inputTokens), "x-amzn-bedrock-output-token-count": String(u.outputTokens), "x-amzn-bedrock-invocation-latency": "412", "x-amzn-requestid": "req-fake-invoke" };
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json", ...counts });
    res.end(JSON.stringify({ id, type: "message", role: "assistant", model, content, stop_reason: stopReason, stop_sequence: null, usage }));
    return;
  }
  const events: Record<string, unknown>[] = [{ type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }];
  let i = 0;
  if (s.reasoning) {
    events.push({ type: "content_block_start", index: i, content_block: { type: "thinking", thinking: "", signature: "" } });
    events.push({ type: "content_block_delta", index: i, delta: { type: "thinking_delta", thinking: s.reasoning } });
    events.push({ type: "content_block_delta", index: i, delta: { type: "signature_delta", signature: "fake-bedrock-anthropic-signature" } });
    events.push({ type: "content_block_stop", index: i++ });
  }
  if (s.text) {
    events.push({ type: "content_block_start", index: i, content_block: { type: "text", text: "" } });
    for (const w of s.text.split(/(?= )/)) events.push({ type: "content_block_delta", index: i, delta: { type: "text_delta", text: w } });
    events.push({ type: "content_block_stop", index: i++ });
  }
  if (s.toolCall) {
    events.push({ type: "content_block_start", index: i, content_block: { type: "tool_use", id: "toolu_bdrk_fake1", name: s.toolCall.name, input: {} } });
    const args = JSON.stringify(s.toolCall.input);
    for (const piece of [args.slice(0, 5), args.slice(5)]) events.push({ type: "content_block_delta", index: i, delta: { type: "input_json_delta", partial_json: piece } });
    events.push({ type: "content_block_stop", index: i++ });
  }
  events.push({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: u.outputTokens } });
  events.push({
    type: "message_stop",
    "amazon-bedrock-invocationMetrics": { inputTokenCount: u.inputTokens, outputTokenCount: u.outputTokens, invocationLatency: 412, firstByteLatency: 120, cacheReadInputTokenCount: u.cacheReadInputTokens ?? 0, cacheWriteInputTokenCount: u.cacheWriteInputTokens ?? 0 },
  });
  const frames = events.map((e) => frame("chunk", { bytes: Buffer.from(JSON.stringify(e)).toString("base64"), p: "abcdefghijklmnopqrstuvwxyzABCDEF".slice(0, 1 + (JSON.stringify(e).length % 30)) }));
  if (s.streamException) frames.splice(3, frames.length - 3, frame("modelStreamErrorException", { message: "The model stream failed.", originalStatusCode: 500 }, "exception"));
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "req-fake-invoke" });
  const all = Buffer.concat(frames.map((f) => Buffer.from(f)));
  for (let at = 0; at < all.length; at += 41) res.write(all.subarray(at, at + 41));
  res.end();
}

export async function startFakeBedrock(): Promise<FakeBedrock> {
  const fake: FakeBedrock = { baseUrl: "", requests: [], script: { text: "Hello from Bedrock.", usage: { inputTokens: 30, outputTokens: 12 } }, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const raw = Buffer.concat(chunks);
      const signatureOk = await verify(req, raw);
      const body = JSON.parse(raw.toString("utf8") || "null");
      fake.requests.push({ path: req.url!, headers: req.headers, body, signatureOk });
      const json = (status: number, v: unknown, type?: string) => res.writeHead(status, { "content-type": "application/json", ...(type ? { "x-amzn-errortype": type } : {}), "x-amzn-requestid": "req-fake-1" }).end(JSON.stringify(v));
      if (!signatureOk) return json(403, { message: "The request signature we calculated does not match the signature you provided." }, "InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/");
      const inv = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(req.url!);
      if (inv && /embed/.test(decodeURIComponent(inv[1]!))) return embed(decodeURIComponent(inv[1]!), body, res, json);
      if (inv) {
        const script = fake.brain?.(body, "invoke") ?? fake.script;
        fake.requests.at(-1)!.answered = script.usage;
        return invoke(script, body, inv[2] === "invoke-with-response-stream", res, json);
      }
      const m = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(req.url!);
      if (!m) return json(404, { message: "Not Found" }, "UnknownOperationException");
      if (!Array.isArray(body?.messages) || !body.messages.length) return json(400, { message: "A conversation must start with a user message." }, "ValidationException");
      let s = fake.brain?.(body, "converse") ?? fake.script;
      const calls = s.toolCalls ?? (s.toolCall ? [s.toolCall] : []);
      let stopReason = calls.length ? "tool_use" : "end_turn";
      let trace: unknown;
      const g = body.guardrailConfig;
      if (g !== undefined) {
        if (g.guardrailIdentifier !== BEDROCK_GUARDRAIL.id || g.guardrailVersion !== BEDROCK_GUARDRAIL.version)
          return json(404, { message: "The guardrail identifier or version provided in the request does not exist." }, "ResourceNotFoundException");
        if (g.trace !== undefined && !["enabled", "disabled", "enabled_full"].includes(g.trace)) return json(400, { message: "1 validation error detected: guardrailConfig.trace" }, "ValidationException");
        if (JSON.stringify(body.messages).includes(BEDROCK_GUARDRAIL.deniedTopic)) {
          // The guardrail's blocked-input message in place of an answer; the model never ran.
          s = { text: BEDROCK_GUARDRAIL.blockedMessage, usage: { inputTokens: 0, outputTokens: 0 } };
          stopReason = "guardrail_intervened";
          if (g.trace === "enabled" || g.trace === "enabled_full") trace = { guardrail: { inputAssessment: { [g.guardrailIdentifier]: { topicPolicy: { topics: [{ name: "Forbidden", type: "DENY", action: "BLOCKED" }] } } } } };
        }
      }
      const content: unknown[] = [];
      if (s.reasoning) content.push({ reasoningContent: { reasoningText: { text: s.reasoning, signature: "fake-bedrock-signature" } } });
      if (s.text) content.push({ text: s.text });
      calls.forEach((c, k) => content.push({ toolUse: { toolUseId: `tooluse_fake${k + 1}`, name: c.name, input: c.input } }));
      fake.requests.at(-1)!.answered = s.usage;
      const usage = { ...s.usage, totalTokens: s.usage.inputTokens + s.usage.outputTokens };
      if (m[2] === "converse") return json(200, { output: { message: { role: "assistant", content } }, stopReason, usage, metrics: { latencyMs: 100 }, ...(trace ? { trace } : {}) });
      res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "req-fake-1" });
      const frames = [frame("messageStart", { role: "assistant" })];
      let i = 0;
      if (s.reasoning) {
        frames.push(frame("contentBlockDelta", { contentBlockIndex: i, delta: { reasoningContent: { text: s.reasoning } } }));
        frames.push(frame("contentBlockDelta", { contentBlockIndex: i, delta: { reasoningContent: { signature: "fake-bedrock-signature" } } }));
        frames.push(frame("contentBlockStop", { contentBlockIndex: i++ }));
      }
      if (s.text) {
        for (const w of s.text.split(/(?= )/)) frames.push(frame("contentBlockDelta", { contentBlockIndex: i, delta: { text: w } }));
        frames.push(frame("contentBlockStop", { contentBlockIndex: i++ }));
      }
      if (s.streamException) frames.push(frame("throttlingException", { message: "Too many requests, please wait before trying again." }, "exception"));
      calls.forEach((c, k) => {
        frames.push(frame("contentBlockStart", { contentBlockIndex: i, start: { toolUse: { toolUseId: `tooluse_fake${k + 1}`, name: c.name } } }));
        const args = JSON.stringify(c.input);
        for (const piece of [args.slice(0, 5), args.slice(5)]) frames.push(frame("contentBlockDelta", { contentBlockIndex: i, delta: { toolUse: { input: piece } } }));
        frames.push(frame("contentBlockStop", { contentBlockIndex: i++ }));
      });
      frames.push(frame("messageStop", { stopReason }));
      frames.push(frame("metadata", { usage, metrics: { latencyMs: 100 }, ...(trace ? { trace } : {}) }));
      // Split across writes at odd places: the client must reassemble the messages.
      const all = Buffer.concat(frames.map((f) => Buffer.from(f)));
      for (let at = 0; at < all.length; at += 37) res.write(all.subarray(at, at + 37));
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
