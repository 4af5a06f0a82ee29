/**
 * The `openai` text upstream: POST {baseUrl}/chat/completions with a Bearer key, in the dialect
 * of the upstream's vendor (openai-vendors.ts) both ways.
 */
import { fromOpenAIChatResponse, createOpenAIChatDecoder } from "./openai-chat-response";
import { toOpenAIChatBody } from "./openai-chat-request";
import { decodeAnswer, httpComplete, httpStream } from "./text-http-call";
import { vendorHeaders } from "./http";
import { jsonTarget, openaiEndpoint, type OpenAIEndpoint } from "./openai-endpoint";
import { forTarget, OPENAI_TOOL_NAMES, restoreNames, restoringDecoder } from "./tool-names";
import { costIntoUsage, framed, sameProtocol } from "./passthrough";
import { toVendorBody, vendorProfile } from "./openai-vendors";
import type { PreparedCall, TextAdapter, UpstreamChunk } from "./text-types";
import type { ModelRoute } from "../model-route";

const VENDOR_HEADERS = ["openai-beta"] as const;

export const openaiChat = createOpenAIChatAdapter(openaiEndpoint);

/** Chat Completions at an endpoint (OpenAI's and compatible vendors', Azure's: azure-openai.ts). */
export function createOpenAIChatAdapter(endpoint: OpenAIEndpoint): TextAdapter {
  const target = (route: ModelRoute, call?: PreparedCall) => jsonTarget(endpoint, "chat/completions", route, call);
  return {
    passthrough: sameProtocol("chat-completions", injectChatCost, renderChatEvent),
    capabilities: {
      hints: new Set(["seed", "presence_penalty", "frequency_penalty", "verbosity", "service_tier", "top_p", "temperature", "parallel_tool_calls", "prompt_cache_key"]),
      hostedTools: new Set(),
    },
    // A chat `file` part takes no URL (image_url does): documents behind one go inline.
    // @see https://platform.openai.com/docs/guides/pdf-files (file inputs: 32 MB of content per request)
    inlineMedia: { images: false, documents: true, maxInlineBytes: 32 * 1024 * 1024, limitName: "OpenAI's 32 MB file-input limit per request" },
    prepare(route, req, raw, clientHeaders) {
      if (raw) {
        // Same protocol in and out: the client's JSON goes on with unknown fields intact.
        // A copy that may gain keys: Object.assign, not { ...raw } (decision 0033).
        const body: Record<string, unknown> = Object.assign({}, raw, { model: route.upstreamModel });
        const so = raw.stream_options as Record<string, unknown> | undefined | null;
        if (req.stream) body.stream_options = { ...(so ?? {}), include_usage: true };
        if (req.maxOutputTokens !== undefined && raw.max_completion_tokens == null && raw.max_tokens == null)
          body.max_completion_tokens = req.maxOutputTokens;
        const vendor = toVendorBody(vendorProfile(route.upstream.settings?.vendor), body, req, route.upstreamModel);
        if (!vendor.ok) return vendor;
        const call: PreparedCall = { route, publicModel: req.model, stream: req.stream, body, request: req, passthrough: true, hideUsageChunk: !so?.include_usage, headers: vendorHeaders(clientHeaders, VENDOR_HEADERS) };
        if (vendor.value.length) call.dropped = vendor.value;
        return { ok: true, value: call };
      }
      const named = forTarget(req, OPENAI_TOOL_NAMES);
      const body = toOpenAIChatBody(named.request, route.upstreamModel);
      if (!body.ok) return body;
      const vendor = toVendorBody(vendorProfile(route.upstream.settings?.vendor), body.value, named.request, route.upstreamModel);
      if (!vendor.ok) return vendor;
      const dropped = [...(body.dropped ?? []), ...vendor.value];
      return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: body.value, request: req, passthrough: false, dropped: dropped.length ? dropped : undefined, toolNames: named.toolNames } };
    },
    complete(call, opts) {
      const vendor = vendorProfile(call.route.upstream.settings?.vendor);
      return restoreNames(call, httpComplete(call, opts, target(call.route, call), (j) => fromOpenAIChatResponse(j, vendor), (j) => {
        j.model = call.publicModel;
      }));
    },
    decode(call, json) {
      const vendor = vendorProfile(call.route.upstream.settings?.vendor);
      return restoreNames(call, Promise.resolve(decodeAnswer(json, (j) => fromOpenAIChatResponse(j, vendor), (j) => {
        j.model = call.publicModel;
      })));
    },
    stream(call, opts) {
      const d = createOpenAIChatDecoder(call.publicModel, vendorProfile(call.route.upstream.settings?.vendor));
      return httpStream(call, opts, target(call.route, call), restoringDecoder(call, { push: (data) => d.push(data), end: () => d.end() }));
    },
  };
}

function injectChatCost(json: Record<string, unknown>, costMicroUsd: number): void {
  costIntoUsage(json.usage, costMicroUsd);
}

/**
 * Chat completions' stream: `data: [DONE]` ends it; usage comes in a last chunk with empty
 * `choices`, which we force upstream to bill by. A client that did not ask for it (no
 * `stream_options.include_usage`) gets neither that chunk nor the `usage: null` of the others.
 */
function renderChatEvent(chunk: UpstreamChunk, call: PreparedCall, costMicroUsd: number | undefined): string[] {
  if (chunk.doneMarker) return ["data: [DONE]\n\n"];
  const json = chunk.json;
  if (json && call.hideUsageChunk) {
    if (Array.isArray(json.choices) && json.choices.length === 0 && json.usage) return [];
    if (json.usage === null) delete json.usage;
  }
  return framed(chunk, costMicroUsd, injectChatCost);
}
