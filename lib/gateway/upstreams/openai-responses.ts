/**
 * The `openai-responses` text upstream: POST {baseUrl}/responses with a Bearer key. Responses
 * clients pass through (their JSON, unknown fields and item types kept; still metered from the
 * terminal event's usage); the other protocols are converted to it. A reasoning item goes back
 * only to the upstream that produced it (replayed from the store, or sent back by the client:
 * openai-responses-reasoning.ts): its encrypted content means nothing to another one.
 */
import { replayOrigin } from "./replay-origin";
import { reasoningFor, wrapReasoning } from "./openai-responses-reasoning";
import { createOpenAIResponsesDecoder, fromOpenAIResponsesResponse } from "./openai-responses-response";
import { toOpenAIResponsesBody } from "./openai-responses-request";
import { forTarget, OPENAI_TOOL_NAMES, restoreNames, restoringDecoder } from "./tool-names";
import { httpComplete, httpStream } from "./text-http-call";
import { vendorHeaders } from "./http";
import { jsonTarget, openaiEndpoint, type OpenAIEndpoint } from "./openai-endpoint";
import { costIntoUsage, sameProtocol } from "./passthrough";
import type { PreparedCall, TextAdapter } from "./text-types";
import type { ModelRoute } from "../model-route";


/** Reasoning items of another upstream are left out; this upstream's own are unwrapped. */
function inputFor(route: ModelRoute, input: unknown): unknown {
  if (!Array.isArray(input)) return input;
  const out: unknown[] = [];
  for (const it of input) {
    if (it && typeof it === "object" && (it as { type?: unknown }).type === "reasoning") {
      const origin = replayOrigin(it);
      if (origin !== undefined && origin !== route.upstream.id) continue;
      const own = reasoningFor(it, route.upstream.id);
      if (own !== null) out.push(own);
    } else out.push(it);
  }
  return out;
}

export const openaiResponses = createOpenAIResponsesAdapter(openaiEndpoint);

/** The Responses API at an endpoint (OpenAI's, Azure's: azure-openai.ts). */
export function createOpenAIResponsesAdapter(endpoint: OpenAIEndpoint): TextAdapter {
  const target = (route: ModelRoute, call?: PreparedCall) => jsonTarget(endpoint, "responses", route, call);
  return {
    // The final usage is on the response object of `response.completed` (or on a whole response).
    passthrough: sameProtocol("responses", (json, cost) => costIntoUsage((json.response && typeof json.response === "object" ? (json.response as Record<string, unknown>) : json).usage, cost)),
    // What toOpenAIResponsesBody renders; other hints and hosted tools are dropped and named.
    capabilities: { hints: new Set(["temperature", "top_p", "parallel_tool_calls", "prompt_cache_key"]), hostedTools: new Set() },
    prepare(route, req, raw, clientHeaders) {
      if (raw) {
        // A copy that may gain keys: Object.assign, not { ...raw } (decision 0033).
        const body: Record<string, unknown> = Object.assign({}, raw, { model: route.upstreamModel, input: inputFor(route, raw.input) });
        // The cap bounds the hold, so it must bound the upstream too.
        if (req.maxOutputTokens !== undefined && raw.max_output_tokens == null) body.max_output_tokens = req.maxOutputTokens;
        const call: PreparedCall = { route, publicModel: req.model, stream: req.stream, body, request: req, passthrough: true, headers: vendorHeaders(clientHeaders, ["openai-beta"]) };
        return { ok: true, value: call };
      }
      const named = forTarget(req, OPENAI_TOOL_NAMES);
      const body = toOpenAIResponsesBody(named.request, route.upstreamModel);
      if (!body.ok) return body;
      return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: body.value, request: req, passthrough: false, toolNames: named.toolNames } };
    },
    complete(call, opts) {
      return restoreNames(call, httpComplete(call, opts, target(call.route, call), fromOpenAIResponsesResponse, (j) => {
        j.model = call.publicModel;
        wrapReasoning(j, call.route.upstream.id);
      }));
    },
    stream(call, opts) {
      const d = createOpenAIResponsesDecoder(call.publicModel);
      const push = (data: string, event: string | undefined) => {
        const chunk = d.push(data, event);
        if (chunk.json) wrapReasoning(chunk.json, call.route.upstream.id);
        return chunk;
      };
      return httpStream(call, opts, target(call.route, call), restoringDecoder(call, { push, end: () => d.end() }));
    },
  };
}
