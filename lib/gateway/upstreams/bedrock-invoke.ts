/**
 * Claude on a `bedrock` upstream through InvokeModel with Anthropic's own Messages body (the
 * upstream's `claudeApi: "invoke"`; what Claude Code and Anthropic's Bedrock SDK use):
 * POST {base}/model/{modelId}/invoke, or /invoke-with-response-stream, signed with SigV4
 * (bedrock-auth.ts). The body is the Messages body without `model` and `stream` (the path says
 * both), with `anthropic_version: "bedrock-2023-05-31"`, and the client's `anthropic-beta`
 * header as the body's `anthropic_beta` list. The answer is Anthropic's Message; a stream is
 * AWS's binary event stream whose `chunk` events carry each Anthropic event, base64 JSON in
 * `bytes` (the last one with Bedrock's `amazon-bedrock-invocationMetrics`, which is not
 * Anthropic's and is left out). Everything else — conversion, passthrough for Messages clients,
 * thinking, tools, cache_control and its prices — is the `anthropic` adapter's.
 */
import type { ModelRoute } from "../model-route";
import { toJson } from "../raw-json";
import { createAnthropicAdapter, type AnthropicTransport } from "./anthropic-messages";
import { bedrockBaseUrl, signBedrock } from "./bedrock-auth";
import { bedrockConverse } from "./bedrock-converse";
import { bedrockEvents, bedrockStreamException, EXCEPTION, parseEventPayload } from "./bedrock-event-stream";
import { invalidUpstreamEvent } from "./sse-reader";
import { callUpstream, readJson } from "./http";
import { badAnswer } from "../errors";
import type { ChunkDecoder, HttpTarget } from "./text-http-call";
import type { CallOptions, PreparedCall, TextAdapter } from "./text-types";

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

export function invokeUrl(route: ModelRoute, stream: boolean): string {
  return `${bedrockBaseUrl(route.upstream)}/model/${encodeURIComponent(route.upstreamModel)}/${stream ? "invoke-with-response-stream" : "invoke"}`;
}

/** The signed request: SigV4 covers the exact bytes sent. */
async function open(call: PreparedCall, opts: CallOptions, target: HttpTarget) {
  const body = toJson(call.body, call.source);
  const headers = await signBedrock(call.route.upstream, "POST", target.url, body, target.headers);
  return callUpstream({ url: target.url, headers, body, signal: opts.signal, timeoutMs: opts.timeoutMs, secret: call.route.upstream.credentials?.secretAccessKey });
}

const INVOCATION_METRICS = "amazon-bedrock-invocationMetrics";

const signed: AnthropicTransport = {
  async complete(call, opts, target, parse, rewriteModel) {
    const opened = await open(call, opts, target);
    if (!opened.ok) return opened;
    const json = await readJson(opened.value, opts.signal);
    if (!json.ok) return json;
    const response = parse(json.value);
    if (!response) return badAnswer("The upstream answered with an unexpected shape.");
    rewriteModel(json.value);
    return { ok: true, value: { response, raw: json.value } };
  },
  async stream(call, opts, target, decoder) {
    const opened = await open(call, opts, Object.assign({}, target, { headers: Object.assign({}, target.headers, { accept: "application/vnd.amazon.eventstream" }) }));
    if (!opened.ok) return opened;
    return { ok: true, value: bedrockEvents(opened.value.body, chunkDecoder(decoder)) };
  },
};

/** `chunk` events → the Anthropic event each carries, as if it had come as SSE. */
function chunkDecoder(d: ChunkDecoder): ChunkDecoder {
  return {
    push(data, event) {
      const payload = parseEventPayload(data);
      if (event?.startsWith(EXCEPTION)) bedrockStreamException(event.slice(EXCEPTION.length), payload);
      if (event !== "chunk" || typeof payload.bytes !== "string") throw invalidUpstreamEvent(`an unexpected event ${event ?? "(untyped)"}`);
      const inner = parseEventPayload(Buffer.from(payload.bytes, "base64").toString("utf8"));
      delete inner[INVOCATION_METRICS];
      return d.push(JSON.stringify(inner), typeof inner.type === "string" ? inner.type : undefined);
    },
    end: () => d.end(),
  };
}

const target = (route: ModelRoute, stream: boolean): HttpTarget => ({
  url: invokeUrl(route, stream),
  headers: { "content-type": "application/json", accept: "application/json" },
});

const inner = createAnthropicAdapter(target, signed);

/** Bedrock names the model in the path and the API version (and betas) in the body. */
export const bedrockInvokeClaude: TextAdapter = Object.assign({}, inner, {
  prepare(...args: Parameters<TextAdapter["prepare"]>) {
    const p = inner.prepare(...args);
    if (!p.ok) return p;
    const body: Record<string, unknown> = Object.assign({}, p.value.body as Record<string, unknown>, { anthropic_version: BEDROCK_ANTHROPIC_VERSION });
    delete body.model;
    delete body.stream;
    const beta = p.value.headers?.["anthropic-beta"];
    if (beta && body.anthropic_beta === undefined) body.anthropic_beta = beta.split(",").map((b) => b.trim()).filter(Boolean);
    // The passthrough's anthropic-* headers are the body's business on Bedrock.
    return { ok: true as const, value: Object.assign({}, p.value, { body, headers: undefined }) };
  },
});

/**
 * Claude models go through InvokeModel when the upstream says `claudeApi: "invoke"`: model ids
 * and inference profiles naming `anthropic.claude`, and application inference profiles (ARNs
 * that name no model: the operator's setting says what they are). The rest through Converse.
 */
export function bedrockTextAdapter(route: Pick<ModelRoute, "upstream" | "upstreamModel">): TextAdapter {
  // A guardrail is applied (and its intervention reported) through Converse: it keeps Claude there.
  if (route.upstream.settings?.claudeApi !== "invoke" || route.upstream.settings.guardrailId) return bedrockConverse;
  return /anthropic\.claude|^arn:aws[a-z-]*:bedrock:[^:]*:\d*:application-inference-profile\//.test(route.upstreamModel) ? bedrockInvokeClaude : bedrockConverse;
}
