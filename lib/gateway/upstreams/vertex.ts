/**
 * The `vertex` upstream: Google Vertex AI in the upstream's `project` and `region`, with an
 * OAuth token from a service account (google-sa-token.ts). Two publishers, each through the
 * code of its own API behind another address:
 * - Gemini models: {base}/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent
 *   (`:streamGenerateContent?alt=sse`), the Gemini API's body; generateContent clients pass through.
 * - Claude models (`claude-…`): …/publishers/anthropic/models/{m}:rawPredict (`:streamRawPredict`),
 *   Anthropic's Messages body without `model`, with `anthropic_version: "vertex-2023-10-16"`;
 *   Messages clients pass through.
 * {base} is https://{region}-aiplatform.googleapis.com (the `global` location: aiplatform.googleapis.com),
 * unless `baseUrl` says otherwise.
 */
import type { Outcome } from "../errors";
import type { ModelRoute, UpstreamInfo } from "../model-route";
import { createAnthropicAdapter } from "./anthropic-messages";
import { createGeminiAdapter } from "./gemini-generate";
import { googleToken } from "./google-sa-token";
import type { PreparedCall, TextAdapter } from "./text-types";
import { authenticated } from "./authenticated";

export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

export function vertexBaseUrl(u: UpstreamInfo): string {
  const region = u.settings?.region ?? "us-central1";
  return (u.baseUrl || (region === "global" ? "https://aiplatform.googleapis.com" : `https://${region}-aiplatform.googleapis.com`)).replace(/\/+$/, "");
}

function modelUrl(route: ModelRoute, publisher: "google" | "anthropic", method: string): string {
  const s = route.upstream.settings ?? {};
  return `${vertexBaseUrl(route.upstream)}/v1/projects/${encodeURIComponent(s.project ?? "")}/locations/${encodeURIComponent(s.region ?? "us-central1")}/publishers/${publisher}/models/${encodeURIComponent(route.upstreamModel)}:${method}`;
}

const json = (call: PreparedCall) => Object.assign({ "content-type": "application/json", accept: "application/json" }, call.headers);

const gemini = createGeminiAdapter((route, stream, call) => ({ url: modelUrl(route, "google", stream ? "streamGenerateContent?alt=sse" : "generateContent"), headers: json(call) }));

const claudeInner = createAnthropicAdapter((route, stream, call) => ({ url: modelUrl(route, "anthropic", stream ? "streamRawPredict" : "rawPredict"), headers: json(call) }));
/** Vertex names the model in the path and the API version in the body. */
const claude: TextAdapter = Object.assign({}, claudeInner, {
  prepare(...args: Parameters<TextAdapter["prepare"]>) {
    const p = claudeInner.prepare(...args);
    if (!p.ok) return p;
    const body = Object.assign({}, p.value.body as Record<string, unknown>, { anthropic_version: VERTEX_ANTHROPIC_VERSION });
    delete body.model;
    // anthropic-beta goes on as a header; anthropic-version is the body's business here.
    const headers = p.value.headers && Object.fromEntries(Object.entries(p.value.headers).filter(([k]) => k !== "anthropic-version"));
    return { ok: true as const, value: Object.assign({}, p.value, { body, headers }) };
  },
});

/** The service account's token as a bearer. */
async function bearerToken(u: UpstreamInfo, signal?: AbortSignal): Promise<Outcome<Record<string, string>>> {
  const token = await googleToken(u, signal);
  return token.ok ? { ok: true, value: { authorization: `Bearer ${token.value}` } } : token;
}

const vertexGemini = authenticated(gemini, bearerToken);
const vertexClaude = authenticated(claude, bearerToken);

/** Claude models through the Anthropic publisher, everything else through Google's. */
export function vertexTextAdapter(route: Pick<ModelRoute, "upstreamModel">): TextAdapter {
  return /^claude/.test(route.upstreamModel) ? vertexClaude : vertexGemini;
}
