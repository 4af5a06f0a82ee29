/**
 * Fake Amazon Bedrock Runtime (docs.aws.amazon.com/bedrock/latest/APIReference, Converse and
 * ConverseStream): POST /model/{modelId}/converse and /converse-stream. It checks what AWS
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

export interface BedrockScript {
  text: string;
  reasoning?: string;
  toolCall?: { name: string; input: Record<string, unknown> };
  usage: { inputTokens: number; outputTokens: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number };
  /** A ThrottlingException in the middle of the stream. */
  streamException?: boolean;
}

export interface FakeBedrock {
  baseUrl: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any; signatureOk: boolean }>;
  script: BedrockScript;
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
      const m = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(req.url!);
      if (!m) return json(404, { message: "Not Found" }, "UnknownOperationException");
      if (!Array.isArray(body?.messages) || !body.messages.length) return json(400, { message: "A conversation must start with a user message." }, "ValidationException");
      const s = fake.script;
      const content: unknown[] = [];
      if (s.reasoning) content.push({ reasoningContent: { reasoningText: { text: s.reasoning, signature: "fake-bedrock-signature" } } });
      if (s.text) content.push({ text: s.text });
      if (s.toolCall) content.push({ toolUse: { toolUseId: "tooluse_fake1", name: s.toolCall.name, input: s.toolCall.input } });
      const stopReason = s.toolCall ? "tool_use" : "end_turn";
      const usage = { ...s.usage, totalTokens: s.usage.inputTokens + s.usage.outputTokens };
      if (m[2] === "converse") return json(200, { output: { message: { role: "assistant", content } }, stopReason, usage, metrics: { latencyMs: 100 } });
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
      if (s.toolCall) {
        frames.push(frame("contentBlockStart", { contentBlockIndex: i, start: { toolUse: { toolUseId: "tooluse_fake1", name: s.toolCall.name } } }));
        const args = JSON.stringify(s.toolCall.input);
        for (const piece of [args.slice(0, 5), args.slice(5)]) frames.push(frame("contentBlockDelta", { contentBlockIndex: i, delta: { toolUse: { input: piece } } }));
        frames.push(frame("contentBlockStop", { contentBlockIndex: i++ }));
      }
      frames.push(frame("messageStop", { stopReason }));
      frames.push(frame("metadata", { usage, metrics: { latencyMs: 100 } }));
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
