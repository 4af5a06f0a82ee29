/** The `gemini` text upstream: POST {baseUrl}/v1beta/models/{m}:generateContent (or :streamGenerateContent?alt=sse). */
import { createGeminiDecoder, fromGeminiResponse } from "./gemini-generate-response";
import { toGeminiBody } from "./gemini-generate-request";
import { decodeAnswer, httpComplete, httpStream, type HttpTarget } from "./text-http-call";
import { joinUrl } from "./http";
import { firstCallDecoder, firstCallOnly, oneCallEnforced } from "./first-call-only";
import { forTarget, GEMINI_TOOL_NAMES, restoreNames, restoringDecoder } from "./tool-names";
import { costIntoUsage, sameProtocol } from "./passthrough";
import type { PreparedCall, TextAdapter } from "./text-types";
import type { ModelRoute } from "../model-route";

/** Where generateContent lives and how it is signed (the Gemini API's here; Vertex AI's: vertex.ts). */
export type GeminiTarget = (route: ModelRoute, stream: boolean, call: PreparedCall) => HttpTarget;

const geminiApiTarget: GeminiTarget = (route, stream) => {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (route.upstream.apiKey) headers["x-goog-api-key"] = route.upstream.apiKey;
  const model = encodeURIComponent(route.upstreamModel);
  const path = stream ? `v1beta/models/${model}:streamGenerateContent?alt=sse` : `v1beta/models/${model}:generateContent`;
  return { url: joinUrl(route.upstream.baseUrl, path), headers };
};

export const geminiGenerate = createGeminiAdapter(geminiApiTarget);

export function createGeminiAdapter(target: GeminiTarget): TextAdapter {
  return {
    passthrough: sameProtocol("generate-content", (json, cost) => costIntoUsage(json.usageMetadata, cost, "costUsd")),
    capabilities: {
      // parallel_tool_calls: no switch upstream; the gateway keeps the first call (first-call-only.ts).
      hints: new Set(["top_k", "seed", "presence_penalty", "frequency_penalty", "top_p", "temperature", "parallel_tool_calls"]),
      hostedTools: new Set(["web_search", "code_execution", "url_context"]),
    },
    // Gemini takes no arbitrary URLs: images and documents go inline.
    // @see https://ai.google.dev/gemini-api/docs/image-understanding (inline data: 20 MB per request)
    inlineMedia: { images: true, documents: true, maxInlineBytes: 20 * 1024 * 1024, limitName: "Gemini's 20 MB inline request limit" },
    prepare(route, req, raw) {
      if (raw) {
        // Forwarded as sent: no output cap is added (the hold is bounded by the catalog's maximum,
        // and an injected cap could sit below the client's own thinking budget).
        const body: Record<string, unknown> = { ...raw };
        delete body.model;
        return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body, request: req, passthrough: true } };
      }
      const named = forTarget(req, GEMINI_TOOL_NAMES);
      const body = toGeminiBody(named.request, route.upstreamModel);
      if (!body.ok) return body;
      const enforced = oneCallEnforced(req);
      return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: body.value, request: req, passthrough: false, dropped: body.dropped, enforced, toolNames: named.toolNames } };
    },
    complete(call, opts) {
      return firstCallOnly(call, restoreNames(call, httpComplete(call, opts, target(call.route, false, call), fromGeminiResponse, (j) => {
        j.modelVersion = call.publicModel;
      })));
    },
    decode(call, json) {
      return firstCallOnly(call, restoreNames(call, Promise.resolve(decodeAnswer(json, fromGeminiResponse, (j) => {
        j.modelVersion = call.publicModel;
      }))));
    },
    stream(call, opts) {
      const d = createGeminiDecoder(call.publicModel);
      return httpStream(call, opts, target(call.route, true, call), firstCallDecoder(call, restoringDecoder(call, { push: (data) => d.push(data), end: () => d.end() })));
    },
  };
}
