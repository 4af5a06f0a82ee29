/**
 * The `bedrock` text upstream: Amazon Bedrock's Converse API, one shape for every text model
 * (Claude, Llama, Mistral, Nova, …), POST {baseUrl}/model/{modelId}/converse or
 * /converse-stream, signed with SigV4 (bedrock-auth.ts). The model id may be a cross-region
 * inference profile (`us.anthropic.claude-…`) or an ARN; it is one path segment, URI-encoded.
 * The stream is AWS's binary event stream, split and decoded by the SDK's codec
 * (@smithy/core/event-streams), never by hand. Every client protocol is converted to it.
 */
import { badAnswer, type Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import { toJson } from "../raw-json";
import { bedrockBaseUrl, signBedrock } from "./bedrock-auth";
import { toConverseBody } from "./bedrock-converse-request";
import { createConverseDecoder, fromConverseResponse } from "./bedrock-converse-response";
import { callUpstream, readJson, type UpstreamResponse } from "./http";
import { bedrockEvents, EXCEPTION, parseEventPayload as parse } from "./bedrock-event-stream";
import { firstCallDecoder, firstCallOnly, oneCallEnforced } from "./first-call-only";
import { forTarget, OPENAI_TOOL_NAMES, restoreNames, restoringDecoder } from "./tool-names";
import type { CallOptions, PreparedCall, TextAdapter } from "./text-types";

export function converseUrl(route: ModelRoute, stream: boolean): string {
  return `${bedrockBaseUrl(route.upstream)}/model/${encodeURIComponent(route.upstreamModel)}/${stream ? "converse-stream" : "converse"}`;
}

async function send(call: PreparedCall, opts: CallOptions, stream: boolean): Promise<Outcome<UpstreamResponse>> {
  const url = converseUrl(call.route, stream);
  const body = toJson(call.body, call.source);
  const headers = await signBedrock(call.route.upstream, "POST", url, body, { "content-type": "application/json", accept: stream ? "application/vnd.amazon.eventstream" : "application/json" });
  return callUpstream({ url, headers, body, signal: opts.signal, timeoutMs: opts.timeoutMs, secret: call.route.upstream.credentials?.secretAccessKey });
}

/**
 * The upstream's Bedrock guardrail on every call: an answer it blocks comes back with the
 * guardrail's message and stopReason `guardrail_intervened`, each client's content-filter stop.
 */
export function guardrailConfig(route: ModelRoute): Record<string, string> | undefined {
  const s = route.upstream.settings;
  if (!s?.guardrailId || !s.guardrailVersion) return undefined;
  return { guardrailIdentifier: s.guardrailId, guardrailVersion: s.guardrailVersion, ...(s.guardrailTrace ? { trace: s.guardrailTrace } : {}) };
}

/** Bedrock's tool names follow OpenAI's rule ([a-zA-Z0-9_-]{1,64}). */
export const bedrockConverse: TextAdapter = {
  // parallel_tool_calls: Converse has no switch; the gateway keeps the first call (first-call-only.ts).
  capabilities: { hints: new Set(["temperature", "top_p", "parallel_tool_calls"]), hostedTools: new Set() },
  // Converse takes images and documents as bytes only.
  // @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html (3.75 MB an image, 4.5 MB a document)
  inlineMedia: { images: true, documents: true, maxInlineBytes: 20 * 1024 * 1024, limitName: "the gateway's 20 MB inline allowance for Bedrock" },
  prepare(route, req) {
    const named = forTarget(req, OPENAI_TOOL_NAMES);
    const body = toConverseBody(named.request, route.upstreamModel);
    if (!body.ok) return body;
    const guardrail = guardrailConfig(route);
    if (guardrail) body.value.guardrailConfig = guardrail;
    return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: body.value, request: req, passthrough: false, dropped: body.dropped, enforced: oneCallEnforced(req), toolNames: named.toolNames } };
  },
  complete(call, opts) {
    return firstCallOnly(call, restoreNames(
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
    ));
  },
  async stream(call, opts) {
    const opened = await send(call, opts, true);
    if (!opened.ok) return opened;
    const d = createConverseDecoder(call.publicModel, String(opened.value.headers["x-amzn-requestid"] ?? ""));
    const decoder = firstCallDecoder(
      call,
      restoringDecoder(call, {
        push: (data, event) => (event?.startsWith(EXCEPTION) ? d.fail(event.slice(EXCEPTION.length), parse(data)) : d.push(event ?? "", parse(data))),
        end: () => d.end(),
      }),
    );
    return { ok: true, value: bedrockEvents(opened.value.body, decoder) };
  },
};
