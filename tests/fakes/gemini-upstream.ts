/**
 * Fake Gemini generateContent upstream (reference/generate-content.md):
 * POST /v1beta/models/{m}:generateContent and :streamGenerateContent?alt=sse, x-goog-api-key
 * (or ?key=); data-only SSE chunks, the last with finishReason and full usageMetadata.
 */
import { refuseGemini } from "./vendor-rules";
import { startFake, words, type FakeTextUpstream, type Protocol, type TextScript } from "./text-fake-core";

export const GEMINI_FAKE_KEY = "sk-upstream-fake-gemini";

const STATUS: Record<number, string> = { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE" };
/** promptTokenCount includes cachedContentTokenCount; candidatesTokenCount excludes thoughtsTokenCount. */
const usage = (s: TextScript, final: boolean): Record<string, unknown> | null => {
  if (s.rawUsage) return s.rawUsage;
  if (!s.usage) return null;
  const u = s.usage;
  const cached = u.cacheRead ? { cachedContentTokenCount: u.cacheRead } : {};
  if (!final) return { promptTokenCount: u.input, totalTokenCount: u.input, ...cached };
  const thoughts = u.reasoning ?? 0;
  const drawn = imageTokens(s);
  // Image models report the answer's tokens by modality (TEXT omitted when there is none).
  const details = s.images?.length ? { candidatesTokensDetails: [...(u.output - thoughts - drawn > 0 ? [{ modality: "TEXT", tokenCount: u.output - thoughts - drawn }] : []), { modality: "IMAGE", tokenCount: drawn }] } : {};
  return { promptTokenCount: u.input, candidatesTokenCount: u.output - thoughts, totalTokenCount: u.input + u.output, ...cached, ...(thoughts ? { thoughtsTokenCount: thoughts } : {}), ...details };
};
const imageTokens = (s: TextScript) => (s.images ?? []).reduce((n, i) => n + (i.tokens ?? 1290), 0);
const images = (s: TextScript) => (s.images ?? []).map((i) => ({ inlineData: { mimeType: i.mimeType, data: i.data } }));
const calls = (s: TextScript) =>
  s.toolCalls.map((t) => ({ functionCall: { ...(t.id ? { id: t.id } : {}), name: t.name, args: JSON.parse(t.arguments) }, ...(t.signature ? { thoughtSignature: t.signature } : {}) }));
/** logprobsResult for these tokens when the request asked (responseLogprobs; top candidates with `logprobs`). */
const logprobsOf = (tokens: string[], body: any) => {
  const g = body?.generationConfig;
  if (!g?.responseLogprobs || !tokens.length) return {};
  const top = (t: string) => Array.from({ length: g.logprobs ?? 0 }, (_, k) => ({ token: k === 0 ? t : `${t}~${k}`, tokenId: k, logProbability: -0.25 * (k + 1) }));
  return { logprobsResult: { topCandidates: tokens.map((t) => ({ candidates: top(t) })), chosenCandidates: tokens.map((t) => ({ token: t, tokenId: 1, logProbability: -0.25 })), logProbabilitySum: -0.25 * tokens.length } };
};
const thought = (s: TextScript) => (s.reasoning ? [{ text: s.reasoning, thought: true }] : []);
const modelOf = (path: string) => decodeURIComponent(path.split("/models/")[1]?.split(":")[0] ?? "");

export const geminiProtocol: Protocol = {
  refuse: (req, body) => {
    const message = refuseGemini(body, modelOf(req.url ?? ""));
    return message ? { status: 400, message } : null;
  },
  match: (path) => {
    const p = path.split("?")[0]!;
    if (!p.startsWith("/v1beta/models/")) return null;
    if (p.endsWith(":generateContent")) return { stream: false };
    if (p.endsWith(":streamGenerateContent") && path.includes("alt=sse")) return { stream: true };
    return null;
  },
  keyOf: (req, url) => (req.headers["x-goog-api-key"] as string | undefined) ?? url.searchParams.get("key") ?? undefined,
  errorBody: (status, message, s) => ({
    error: {
      code: status,
      message,
      status: STATUS[status] ?? "INTERNAL",
      ...(s?.retryDelay ? { details: [{ "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests" }] }, { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: s.retryDelay }] } : {}),
    },
  }),
  json: (s, body) => ({
    candidates: [{ content: { role: "model", parts: [...thought(s), ...(s.text ? [{ text: s.text }] : []), ...images(s), ...calls(s)] }, finishReason: "STOP", index: 0, ...logprobsOf(s.text ? words(s.text) : [], body) }],
    ...(usage(s, true) ? { usageMetadata: usage(s, true) } : {}),
    modelVersion: "gemini-fake-001",
    responseId: "fake-resp-1",
  }),
  events: (s, body) => {
    const chunk = (parts: Array<{ text?: string; thought?: boolean } | object>, final: boolean) =>
      `data: ${JSON.stringify({
        candidates: [{ content: { parts, role: "model" }, ...(final ? { finishReason: "STOP" } : {}), index: 0, ...logprobsOf(parts.flatMap((p) => ("text" in p && p.text && !p.thought ? [p.text] : [])), body) }],
        ...(usage(s, final) ? { usageMetadata: usage(s, final) } : {}),
        modelVersion: "gemini-fake-001",
        responseId: "fake-resp-1",
      })}\n\n`;
    const ws = s.text ? words(s.text) : [];
    const out: string[] = [];
    if (s.reasoning) out.push(chunk(thought(s), false));
    const drawn = images(s);
    ws.forEach((w, i) => out.push(chunk([{ text: w }], i === ws.length - 1 && !s.toolCalls.length && !drawn.length)));
    drawn.forEach((p, i) => out.push(chunk([p], i === drawn.length - 1 && !s.toolCalls.length)));
    if (s.toolCalls.length) out.push(chunk(calls(s), true));
    if (!out.length) out.push(chunk([{ text: "" }], true));
    return out;
  },
  truncateAt: (events) => Math.max(1, events.length - 1),
};

export function startFakeGemini(): Promise<FakeTextUpstream> {
  return startFake(geminiProtocol, GEMINI_FAKE_KEY, "");
}

export { modelOf as geminiModelOf };
