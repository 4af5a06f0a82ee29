/**
 * The `bedrock` text upstream: Amazon Bedrock's Converse API, one shape for every text model
 * (Claude, Llama, Mistral, Nova, …), POST {baseUrl}/model/{modelId}/converse or
 * /converse-stream, signed with SigV4 (bedrock-auth.ts). The model id may be a cross-region
 * inference profile (`us.anthropic.claude-…`) or an ARN; it is one path segment, URI-encoded.
 * The stream is AWS's binary event stream, split and decoded by the SDK's codec
 * (@smithy/core/event-streams), never by hand. Every client protocol is converted to it.
 */
import { EventStreamCodec, getChunkedStream } from "@smithy/core/event-streams";
import { badAnswer, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { toJson } from "../raw-json";
import { bedrockBaseUrl, signBedrock } from "./bedrock-auth";
import { toConverseBody } from "./bedrock-converse-request";
import { createConverseDecoder, fromConverseResponse } from "./bedrock-converse-response";
import { callUpstream, readJson, type UpstreamResponse } from "./http";
import { invalidUpstreamEvent } from "./sse-reader";
import { forTarget, OPENAI_TOOL_NAMES, restoreNames, restoringDecoder } from "./tool-names";
import type { ChunkDecoder } from "./text-http-call";
import type { CallOptions, PreparedCall, TextAdapter, UpstreamChunk } from "./text-types";

const utf8 = new TextDecoder();
const codec = new EventStreamCodec((bytes) => utf8.decode(bytes), (text) => new TextEncoder().encode(text));

export function converseUrl(route: ModelRoute, stream: boolean): string {
  return `${bedrockBaseUrl(route.upstream)}/model/${encodeURIComponent(route.upstreamModel)}/${stream ? "converse-stream" : "converse"}`;
}

async function send(call: PreparedCall, opts: CallOptions, stream: boolean): Promise<Outcome<UpstreamResponse>> {
  const url = converseUrl(call.route, stream);
  const body = toJson(call.body, call.source);
  const headers = await signBedrock(call.route.upstream, "POST", url, body, { "content-type": "application/json", accept: stream ? "application/vnd.amazon.eventstream" : "application/json" });
  return callUpstream({ url, headers, body, signal: opts.signal, timeoutMs: opts.timeoutMs, secret: call.route.upstream.credentials?.secretAccessKey });
}

/** Bedrock's tool names follow OpenAI's rule ([a-zA-Z0-9_-]{1,64}). */
export const bedrockConverse: TextAdapter = {
  capabilities: { hints: new Set(["temperature", "top_p"]), hostedTools: new Set() },
  // Converse takes images and documents as bytes only.
  // @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html (3.75 MB an image, 4.5 MB a document)
  inlineMedia: { images: true, documents: true, maxInlineBytes: 20 * 1024 * 1024, limitName: "the gateway's 20 MB inline allowance for Bedrock" },
  prepare(route, req) {
    const named = forTarget(req, OPENAI_TOOL_NAMES);
    const body = toConverseBody(named.request, route.upstreamModel);
    if (!body.ok) return body;
    return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: body.value, request: req, passthrough: false, dropped: body.dropped, toolNames: named.toolNames } };
  },
  complete(call, opts) {
    return restoreNames(
      call,
      (async () => {
        const opened = await send(call, opts, false);
        if (!opened.ok) return opened;
        const json = await readJson(opened.value, opts.signal);
        if (!json.ok) return json;
        const response = fromConverseResponse(json.value);
        if (!response) return badAnswer("The upstream answered with an unexpected shape.");
        response.id ||= String(opened.value.headers["x-amzn-requestid"] ?? "");
        return { ok: true as const, value: { response } };
      })(),
    );
  },
  async stream(call, opts) {
    const opened = await send(call, opts, true);
    if (!opened.ok) return opened;
    const d = createConverseDecoder(call.publicModel, String(opened.value.headers["x-amzn-requestid"] ?? ""));
    const decoder = restoringDecoder(call, {
      push: (data, event) => (event?.startsWith(EXCEPTION) ? d.fail(event.slice(EXCEPTION.length), parse(data)) : d.push(event ?? "", parse(data))),
      end: () => d.end(),
    });
    return { ok: true, value: events(opened.value.body, decoder) };
  },
};

/** How an exception message's type is handed to the decoder beside ordinary event types. */
const EXCEPTION = "exception:";

function parse(data: string): Record<string, unknown> {
  try {
    const v = JSON.parse(data) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* below */
  }
  throw invalidUpstreamEvent("not a JSON object");
}

/** The event stream's messages, each decoded by the SDK's codec (prelude and message CRCs checked). */
async function* events(body: UpstreamResponse["body"], decoder: ChunkDecoder): AsyncGenerator<UpstreamChunk> {
  try {
    for await (const raw of getChunkedStream(body as AsyncIterable<Uint8Array>)) {
      let m;
      try {
        m = codec.decode(raw);
      } catch {
        throw invalidUpstreamEvent("a malformed event-stream message");
      }
      const h = (name: string) => (m.headers[name]?.type === "string" ? String(m.headers[name]!.value) : undefined);
      const event = h(":message-type") === "exception" ? `${EXCEPTION}${h(":exception-type") ?? "exception"}` : h(":event-type");
      yield decoder.push(utf8.decode(m.body), event);
    }
    const last = decoder.end();
    if (last) yield last;
  } finally {
    if (!body.destroyed) body.destroy();
  }
}
