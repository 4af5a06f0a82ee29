/**
 * Where an OpenAI-shaped API lives and how it is authenticated, apart from what is sent: the
 * same chat, Responses, embeddings and images code serves OpenAI (and compatible vendors) and
 * Azure OpenAI (azure-openai.ts), which differ only here.
 */
import type { ModelRoute } from "../model-route";
import { bearer, joinUrl } from "./http";
import type { HttpTarget } from "./text-http-call";
import type { PreparedCall } from "./text-types";

/** `path` is OpenAI's: "chat/completions", "responses", "embeddings", "images/generations". */
export type OpenAIEndpoint = (route: ModelRoute, path: string) => { url: string; headers: Record<string, string> };

/** OpenAI's own: {baseUrl}/{path} with a Bearer key. */
export const openaiEndpoint: OpenAIEndpoint = (route, path) => ({ url: joinUrl(route.upstream.baseUrl, path), headers: bearer(route.upstream.apiKey) });

/** A JSON request to `path`: a passthrough's vendor headers, then the endpoint's own (its auth wins). */
export function jsonTarget(endpoint: OpenAIEndpoint, path: string, route: ModelRoute, call?: PreparedCall): HttpTarget {
  const e = endpoint(route, path);
  return { url: e.url, headers: Object.assign({ "content-type": "application/json", accept: "application/json" }, call?.headers, e.headers) };
}
