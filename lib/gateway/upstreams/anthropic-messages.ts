/** The `anthropic` text upstream: POST {baseUrl}/v1/messages with x-api-key and anthropic-version. */
import { createAnthropicDecoder, fromAnthropicResponse } from "./anthropic-messages-response";
import { toAnthropicBody } from "./anthropic-messages-request";
import { ANTHROPIC_TOOL_NAMES, forTarget, restoreNames, restoringDecoder } from "./tool-names";
import { decodeAnswer, httpComplete, httpStream, type ChunkDecoder, type HttpTarget } from "./text-http-call";
import { joinUrl, vendorHeaders } from "./http";
import { costIntoUsage, sameProtocol } from "./passthrough";
import type { CompleteResult, PreparedCall, TextAdapter, UpstreamChunk } from "./text-types";
import type { Outcome } from "../errors";
import type { ModelRoute } from "../model-route";

/** Forwarded on the passthrough: beta features (context_management, …) need their flag. */
const VENDOR_HEADERS = ["anthropic-beta", "anthropic-version"] as const;

export const ANTHROPIC_VERSION = "2023-06-01";

/** Where Messages lives and how it is signed (Anthropic's API here; Vertex AI's Claude: vertex.ts). */
export type AnthropicTarget = (route: ModelRoute, stream: boolean, call: PreparedCall) => HttpTarget;

const anthropicApiTarget: AnthropicTarget = (route, _stream, call) => {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    "anthropic-version": ANTHROPIC_VERSION,
    ...call?.headers,
  };
  if (route.upstream.apiKey) headers["x-api-key"] = route.upstream.apiKey;
  return { url: joinUrl(route.upstream.baseUrl, "v1/messages"), headers };
};

/** How a prepared call goes over the wire: JSON and SSE here; Bedrock signs and frames it its own way (bedrock-invoke.ts). */
export interface AnthropicTransport {
  complete: typeof httpComplete;
  stream: typeof httpStream;
}

const HTTP: AnthropicTransport = { complete: httpComplete, stream: httpStream };

export const anthropicMessages = createAnthropicAdapter(anthropicApiTarget);

export function createAnthropicAdapter(target: AnthropicTarget, transport: AnthropicTransport = HTTP): TextAdapter {
  return {
    passthrough: sameProtocol("messages", (json, cost) => costIntoUsage(json.usage, cost)),
    capabilities: { hints: new Set(["top_k", "top_p", "temperature", "parallel_tool_calls", "cache_control"]), hostedTools: new Set(["web_search"]) },
    prepare(route, req, raw, clientHeaders) {
      if (raw) {
        const body = Object.assign({}, raw, { model: route.upstreamModel }); // not a spread: decision 0033
        const headers = vendorHeaders(clientHeaders, VENDOR_HEADERS);
        return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body, request: req, passthrough: true, headers } };
      }
      const named = forTarget(req, ANTHROPIC_TOOL_NAMES);
      const body = toAnthropicBody(named.request, route.upstreamModel);
      if (!body.ok) return body;
      return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: body.value, request: req, passthrough: false, dropped: body.dropped, prefill: body.prefill, toolNames: named.toolNames } };
    },
    complete(call, opts) {
      return withPrefill(call, restoreNames(call, transport.complete(call, opts, target(call.route, false, call), fromAnthropicResponse, (j) => {
        j.model = call.publicModel;
      })));
    },
    decode(call, json) {
      return withPrefill(call, restoreNames(call, Promise.resolve(decodeAnswer(json, fromAnthropicResponse, (j) => {
        j.model = call.publicModel;
      }))));
    },
    stream(call, opts) {
      const d = createAnthropicDecoder(call.publicModel);
      return transport.stream(call, opts, target(call.route, true, call), prefillDecoder(call, restoringDecoder(call, d)));
    },
  };
}

/** The answer of a prefilled call shown whole: the prefill before its text. */
async function withPrefill(call: PreparedCall, result: Promise<Outcome<CompleteResult>>): Promise<Outcome<CompleteResult>> {
  const r = await result;
  if (!call.prefill || !r.ok) return r;
  const content = [...r.value.response.content];
  const i = content.findIndex((p) => p.type === "text");
  if (i >= 0) content[i] = { type: "text", text: call.prefill + (content[i] as { text: string }).text };
  else content.unshift({ type: "text", text: call.prefill });
  return { ...r, value: { ...r.value, response: { ...r.value.response, content } } };
}

/** A stream of a prefilled call: the prefill goes out with the first text. */
function prefillDecoder(call: PreparedCall, d: ChunkDecoder): ChunkDecoder {
  let pending = call.prefill;
  if (!pending) return d;
  const fix = (c: UpstreamChunk): UpstreamChunk => {
    if (!pending) return c;
    const events = c.events.map((e) => {
      if (!pending || e.type !== "text_delta") return e;
      const text = pending + e.text;
      pending = undefined;
      return { ...e, text };
    });
    return { ...c, events };
  };
  return { push: (data, event) => fix(d.push(data, event)), end: () => d.end() };
}
