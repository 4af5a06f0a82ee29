/** The `gemini` text upstream: POST {baseUrl}/v1beta/models/{m}:generateContent (or :streamGenerateContent?alt=sse). */
import { camelKeys } from "../protocols/generate-content/camel";
import { createGeminiDecoder, fromGeminiResponse } from "./gemini-generate-response";
import { toGeminiBody } from "./gemini-generate-request";
import { httpComplete, httpStream, type HttpTarget } from "./text-http-call";
import { joinUrl } from "./text-http";
import type { TextAdapter, TextRoute } from "./text-types";

function target(route: TextRoute, stream: boolean): HttpTarget {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (route.upstream.apiKey) headers["x-goog-api-key"] = route.upstream.apiKey;
  const model = encodeURIComponent(route.upstreamModel);
  const path = stream ? `v1beta/models/${model}:streamGenerateContent?alt=sse` : `v1beta/models/${model}:generateContent`;
  return { url: joinUrl(route.upstream.baseUrl, path), headers };
}

export const geminiGenerate: TextAdapter = {
  passthroughFor: "generate-content",
  prepare(route, req, raw) {
    if (raw) {
      // snake_case is legal on input; normalising lets us bound the output like the hold does.
      const body = camelKeys(raw) as Record<string, unknown>;
      delete body.model;
      const gen = { ...((body.generationConfig as Record<string, unknown> | undefined) ?? {}) };
      if (gen.maxOutputTokens == null && req.maxOutputTokens !== undefined) gen.maxOutputTokens = req.maxOutputTokens;
      if (Object.keys(gen).length) body.generationConfig = gen;
      return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body, request: req, passthrough: true } };
    }
    const body = toGeminiBody(req);
    if (!body.ok) return body;
    return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: body.value, request: req, passthrough: false } };
  },
  complete(call, opts) {
    return httpComplete(call, opts, target(call.route, false), fromGeminiResponse, (j) => {
      j.modelVersion = call.publicModel;
    });
  },
  stream(call, opts) {
    const d = createGeminiDecoder(call.publicModel);
    return httpStream(call, opts, target(call.route, true), { push: (data) => d.push(data), end: () => d.end() });
  },
  injectCost(json, costMicroUsd) {
    const u = json.usageMetadata as Record<string, unknown> | undefined;
    if (u && typeof u === "object") u.costUsd = costMicroUsd / 1_000_000;
  },
};
