/**
 * Google's model-method surface (`/{version}/models/{model}:{method}`), served under both `v1beta`
 * and `v1`: @google/genai 3.x defaults to `v1`, older clients and the Gemini CLI use `v1beta`.
 * Text methods hand over to the text capability, embedding methods to the embeddings capability;
 * this file only translates Google's wire shapes.
 */
import { createParser } from "eventsource-parser";
import { handleGeminiSpeech, isSpeechModel } from "../audio/gemini-speech";
import { isGoogleRequest } from "../auth";
import { resolveModel } from "../catalog";
import type { EmbeddingRequest } from "../media/embedding-request";
import { MAX_EMBEDDING_DIMENSIONS, MAX_EMBEDDING_INPUTS } from "../media/embedding-request";
import { serveEmbeddings, type EmbeddingsWire } from "../embeddings/handle-embeddings";
import { errors, type ApiError } from "../errors";
import { handleImagenPredict } from "../images/imagen-predict";
import { json, type GatewayBody, type GatewayResponse } from "../http";
import { generateContent } from "../protocols";
import { estimatePromptTokens } from "../tokens";
import type { RouteContext, RouteDef } from "../types";
import { generation, TEXT_BODY_LIMIT } from "./text";
import type { Result } from "../../result";

const GOOGLE = { transports: { queryKey: true, googApiKey: true }, errorStyle: "gemini" as const };

/** `models/x` in a path or body names the model `x`. */
export const pathModel = (ctx: RouteContext) => ctx.params.model!.replace(/^models\//, "");

const bad = (field: string, why: string): Result<never, ApiError> => ({ ok: false, error: errors.invalidRequest(`\`${field}\` ${why}.`, field) });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** One Gemini `Content` of text parts → the text to embed (parts are one document, joined). */
function contentText(content: unknown, where: string): Result<string, ApiError> {
  if (!isObject(content) || !Array.isArray(content.parts) || content.parts.length === 0)
    return bad(`${where}.parts`, "must be a non-empty array of text parts");
  const texts: string[] = [];
  for (let i = 0; i < content.parts.length; i++) {
    const p = content.parts[i];
    if (!isObject(p) || typeof p.text !== "string") return bad(`${where}.parts[${i}]`, "must be a text part (embeddings take text only)");
    texts.push(p.text);
  }
  const text = texts.join("\n");
  return text.length ? { ok: true, value: text } : bad(`${where}.parts`, "must hold some text");
}

interface EmbedOptions {
  dimensions?: number;
  hints: { taskType?: string; title?: string };
}

function embedOptions(r: Record<string, unknown>, where: string): Result<EmbedOptions, ApiError> {
  const hints: EmbedOptions["hints"] = {};
  for (const k of ["taskType", "title"] as const) {
    if (r[k] === undefined || r[k] === null) continue;
    if (typeof r[k] !== "string") return bad(`${where}${k}`, "must be a string");
    hints[k] = r[k];
  }
  const d = r.outputDimensionality;
  if (d !== undefined && d !== null && (!Number.isInteger(d) || (d as number) < 1 || (d as number) > MAX_EMBEDDING_DIMENSIONS))
    return bad(`${where}outputDimensionality`, `must be an integer from 1 to ${MAX_EMBEDDING_DIMENSIONS}`);
  return { ok: true, value: { dimensions: (d as number | undefined) ?? undefined, hints } };
}

function embeddingRequest(model: string, texts: string[], o: EmbedOptions): EmbeddingRequest {
  return {
    model,
    input: { kind: "text", texts },
    encodingFormat: "float",
    dimensions: o.dimensions,
    geminiHints: Object.keys(o.hints).length ? o.hints : undefined,
  };
}

const values = (v: ArrayLike<number>) => ({ values: Array.from(v) });

/** `:embedContent` — one document. */
const embedContent = (route: string): EmbeddingsWire => ({
  route,
  modelOf: (_b, ctx) => pathModel(ctx),
  parse(body, ctx) {
    if (!isObject(body)) return bad("body", "must be a JSON object");
    const text = contentText(body.content, "content");
    if (!text.ok) return text;
    const o = embedOptions(body, "");
    if (!o.ok) return o;
    return { ok: true, value: embeddingRequest(pathModel(ctx), [text.value], o.value) };
  },
  render: (_req, vectors) => ({ embedding: values(vectors[0]!) }),
});

/** `:batchEmbedContents` — many documents of the path's model, with the same options. */
const batchEmbedContents = (route: string): EmbeddingsWire => ({
  route,
  modelOf: (_b, ctx) => pathModel(ctx),
  parse(body, ctx) {
    if (!isObject(body) || !Array.isArray(body.requests) || body.requests.length === 0)
      return bad("requests", "must be a non-empty array");
    if (body.requests.length > MAX_EMBEDDING_INPUTS) return bad("requests", `may hold at most ${MAX_EMBEDDING_INPUTS} items`);
    const model = pathModel(ctx);
    const texts: string[] = [];
    let first: EmbedOptions | undefined;
    for (let i = 0; i < body.requests.length; i++) {
      const r = body.requests[i];
      const where = `requests[${i}]`;
      if (!isObject(r)) return bad(where, "must be an object");
      if (r.model !== undefined && String(r.model).replace(/^models\//, "") !== model)
        return bad(`${where}.model`, `must name the model of the URL (${model})`);
      const text = contentText(r.content, `${where}.content`);
      if (!text.ok) return text;
      const o = embedOptions(r, `${where}.`);
      if (!o.ok) return o;
      // One upstream request carries one set of options; Google's SDK sends the same for all.
      if (first && JSON.stringify(o.value) !== JSON.stringify(first))
        return bad(where, "must use the same outputDimensionality, taskType and title as requests[0]");
      first ??= o.value;
      texts.push(text.value);
    }
    return { ok: true, value: embeddingRequest(model, texts, first!) };
  },
  render: (_req, vectors) => ({ embeddings: vectors.map(values) }),
});

/** `:countTokens` — our estimate (the same count we bill by when an upstream reports none). */
async function countTokens(ctx: RouteContext): Promise<GatewayResponse> {
  const body = await ctx.readJson();
  if (!body.ok) return ctx.error(body.error);
  if (!isObject(body.value)) return ctx.error(errors.invalidRequest("Request body must be a JSON object."));
  // Either `contents` (+ tools, systemInstruction) or a whole `generateContentRequest`.
  const inner = isObject(body.value.generateContentRequest) ? body.value.generateContentRequest : body.value;
  const parsed = generateContent.parseRequest({ ...inner, contents: inner.contents ?? [] }, { pathModel: pathModel(ctx), stream: false });
  if (!parsed.ok) return ctx.error(parsed.error);
  const resolved = await resolveModel(ctx.principal, parsed.value.model, ["text"], ctx.observe);
  if (!resolved.ok) return ctx.error(resolved.error);
  return json(200, { totalTokens: estimatePromptTokens(parsed.value) });
}

/**
 * Without `alt=sse`, Google streams one JSON array whose elements arrive as they are made
 * (`[{…}\n,\r\n{…}]`); the Google SDKs ask for SSE, raw REST callers often do not.
 */
export function sseToJsonArray(res: GatewayResponse): GatewayResponse {
  if (res.status !== 200 || !res.headers["content-type"]?.startsWith("text/event-stream")) return res;
  const headers = { ...res.headers, "content-type": "application/json; charset=utf-8" };
  return { ...res, headers, body: jsonArray(res.body) };
}

async function* jsonArray(body: GatewayBody): AsyncIterable<string> {
  const pending: string[] = [];
  const parser = createParser({ onEvent: (e) => void pending.push(e.data) });
  const decoder = new TextDecoder();
  let n = 0;
  const chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array> = body === null ? [] : typeof body === "string" || body instanceof Uint8Array ? [body] : body;
  for await (const chunk of chunks) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    if (!pending.length) continue;
    const out = pending.splice(0).map((d) => `${n++ === 0 ? "[" : "\n,\r\n"}${d}`).join("");
    yield out;
  }
  yield n === 0 ? "[]" : "]";
}

function textRoutes(version: string): RouteDef[] {
  const p = `/${version}/models/{model}`;
  const gc = (stream: boolean) => (ctx: RouteContext) => ({ pathModel: pathModel(ctx), stream });
  const streamed = generation(`${p}:streamGenerateContent`, generateContent, gc(true));
  const generated = generation(`${p}:generateContent`, generateContent, gc(false));
  return [
    {
      method: "POST",
      path: `${p}:generateContent`,
      bodyLimit: TEXT_BODY_LIMIT,
      ...GOOGLE,
      // A speech model's generateContent is text to speech (docs/audio.md).
      handler: async (ctx) => ((await isSpeechModel(pathModel(ctx))) ? handleGeminiSpeech(ctx, `${p}:generateContent`, pathModel(ctx)) : generated(ctx)),
    },
    {
      method: "POST",
      path: `${p}:streamGenerateContent`,
      bodyLimit: TEXT_BODY_LIMIT,
      ...GOOGLE,
      handler: async (ctx) => {
        const res = await streamed(ctx);
        return ctx.req.url.searchParams.get("alt") === "sse" ? res : sseToJsonArray(res);
      },
    },
    // Imagen's wire, for any image model (@google/genai generateImages; docs/images.md).
    { method: "POST", path: `${p}:predict`, bodyLimit: 1024 * 1024, ...GOOGLE, handler: handleImagenPredict(`${p}:predict`, pathModel) },
    { method: "POST", path: `${p}:countTokens`, bodyLimit: TEXT_BODY_LIMIT, ...GOOGLE, handler: countTokens },
    { method: "POST", path: `${p}:embedContent`, bodyLimit: 8 * 1024 * 1024, ...GOOGLE, handler: (ctx) => serveEmbeddings(ctx, embedContent(`${p}:embedContent`)) },
    {
      method: "POST",
      path: `${p}:batchEmbedContents`,
      bodyLimit: 8 * 1024 * 1024,
      ...GOOGLE,
      handler: (ctx) => serveEmbeddings(ctx, batchEmbedContents(`${p}:batchEmbedContents`)),
    },
  ];
}

export const googleRoutes: RouteDef[] = [...textRoutes("v1beta"), ...textRoutes("v1")];

/** A Google SDK names its key in `x-goog-api-key` or `?key=`; other clients never do. */
export const isGoogleCaller = (ctx: RouteContext) => isGoogleRequest(ctx.req);
