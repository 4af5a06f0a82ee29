/**
 * Model listing in the three shapes the official SDKs read: OpenAI's list (default), Anthropic's
 * (when the request carries anthropic-version) and Gemini's (`GET /v1beta/models`, and
 * `GET /v1/models` from a Google caller: @google/genai 3.x lists under `v1` with `x-goog-api-key`).
 */
import { textClassPrices } from "../../billing/text-cost";
import { listModels, type ModelSummary } from "../catalog";
import { errorResponse, errors } from "../errors";
import { header, json } from "../http";
import type { RouteDef } from "../types";
import { isGoogleCaller } from "./google";

const usd = (micro: number) => micro / 1_000_000;

/**
 * What a request costs, in USD (per million tokens, per image, per video or second). Text models
 * list every token class with the fallbacks to the input/output price resolved, so a client can
 * tell what a cache hit saves. Extra fields: the SDKs keep them.
 */
function pricing(m: ModelSummary): Record<string, unknown> | undefined {
  const p = m.price;
  if (m.kind === "text") {
    const c = textClassPrices(p);
    return {
      input_per_mtok: usd(c.inputPerMTok),
      output_per_mtok: usd(c.outputPerMTok),
      cache_read_per_mtok: usd(c.cacheReadPerMTok),
      cache_write_5m_per_mtok: usd(c.cacheWrite5mPerMTok),
      cache_write_1h_per_mtok: usd(c.cacheWrite1hPerMTok),
      reasoning_per_mtok: usd(c.reasoningPerMTok),
    };
  }
  if (m.kind === "embedding" && p.inputPerMTok !== undefined) return { input_per_mtok: usd(p.inputPerMTok) };
  if (m.kind === "image" && p.perImage) {
    const out: Record<string, unknown> = { per_image: Object.fromEntries(Object.entries(p.perImage).map(([k, v]) => [k, usd(v)])) };
    const names = { inputPerMTok: "input_per_mtok", imageInputPerMTok: "image_input_per_mtok", outputPerMTok: "output_per_mtok", imageOutputPerMTok: "image_output_per_mtok" } as const;
    for (const [k, name] of Object.entries(names)) {
      const v = p[k as keyof typeof names];
      if (typeof v === "number") out[name] = usd(v);
    }
    return out;
  }
  if (m.kind === "video" && p.perVideo !== undefined) return { per_video: usd(p.perVideo) };
  if (m.kind === "video" && typeof p.perSecond === "number") return { per_second: usd(p.perSecond) };
  if (m.kind === "video" && p.perSecond) return { per_second: Object.fromEntries(Object.entries(p.perSecond).map(([k, v]) => [k, usd(v)])) };
  if (m.kind === "speech" || m.kind === "transcription") {
    const out: Record<string, unknown> = {};
    const names = { inputPerMTok: "input_per_mtok", audioInputPerMTok: "audio_input_per_mtok", outputPerMTok: "output_per_mtok", audioOutputPerMTok: "audio_output_per_mtok", perSecond: "per_second", perMCharacters: "per_mcharacters" } as const;
    for (const [k, name] of Object.entries(names)) {
      const v = p[k as keyof typeof names];
      if (typeof v === "number") out[name] = usd(v);
    }
    return out;
  }
  return undefined;
}

/**
 * The lifecycle (decision 0051) in each shape's own conventions: none of the three vendors' model
 * objects has such fields, so they are extra ones, dated like the shape's own dates (OpenAI: unix
 * seconds as `created`; Anthropic: RFC 3339 as `created_at`; Google: RFC 3339, camelCase).
 */
function lifecycle(m: ModelSummary, style: "openai" | "anthropic" | "gemini"): Record<string, unknown> {
  const lc = m.lifecycle;
  if (!lc) return {};
  const date = (d: Date | null) => (d === null ? null : style === "openai" ? Math.floor(d.getTime() / 1000) : d.toISOString());
  return style === "gemini"
    ? { deprecatedAt: date(lc.deprecatedAt), shutdownAt: date(lc.shutdownAt), successor: lc.successor }
    : { deprecated_at: date(lc.deprecatedAt), shutdown_at: date(lc.shutdownAt), successor: lc.successor };
}

/** Sizing and prices, as extra fields of the OpenAI and Anthropic shapes (absent when not configured). */
function extras(m: ModelSummary): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (m.contextWindow !== null) out.context_window = m.contextWindow;
  if (m.maxOutputTokens !== null) out.max_output_tokens = m.maxOutputTokens;
  if (m.inputModalities !== null) out.input_modalities = m.inputModalities;
  if (m.aliasOf) out.alias_of = m.aliasOf;
  const p = pricing(m);
  if (p) out.pricing = p;
  return out;
}

const openaiModel = (m: ModelSummary) => ({ id: m.id, object: "model", created: m.created, owned_by: m.ownedBy, ...extras(m), ...lifecycle(m, "openai") });
const anthropicModel = (m: ModelSummary) => ({
  type: "model",
  id: m.id,
  display_name: m.id,
  created_at: new Date(m.created * 1000).toISOString(),
  ...extras(m),
  ...lifecycle(m, "anthropic"),
});
const GEMINI_METHODS: Record<ModelSummary["kind"], string[]> = {
  text: ["generateContent", "streamGenerateContent", "countTokens"],
  embedding: ["embedContent", "batchEmbedContents"],
  image: [],
  video: [],
  speech: [],
  transcription: [],
};
const geminiList = (list: ModelSummary[]) => ({ models: list.filter((m) => GEMINI_METHODS[m.kind].length).map(geminiModel) });
const geminiModel = (m: ModelSummary) => ({
  name: `models/${m.id}`,
  baseModelId: m.id,
  version: "1",
  displayName: m.id,
  supportedGenerationMethods: GEMINI_METHODS[m.kind],
  // Gemini's own sizing fields; modalities and prices as extra fields.
  ...(m.contextWindow !== null ? { inputTokenLimit: m.contextWindow } : {}),
  ...(m.maxOutputTokens !== null ? { outputTokenLimit: m.maxOutputTokens } : {}),
  ...(m.inputModalities !== null ? { inputModalities: m.inputModalities } : {}),
  ...(pricing(m) ? { pricing: pricing(m) } : {}),
  ...lifecycle(m, "gemini"),
});

export const modelRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/v1/models",
    transports: { xApiKey: true, googApiKey: true, queryKey: true },
    async handler(ctx) {
      const list = await listModels(ctx.principal);
      if (isGoogleCaller(ctx)) return json(200, geminiList(list));
      if (header(ctx.req, "anthropic-version") !== undefined) {
        const data = list.filter((m) => m.kind === "text").map(anthropicModel);
        return json(200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
      }
      return json(200, { object: "list", data: list.map(openaiModel) });
    },
  },
  {
    method: "GET",
    path: "/v1/models/{model}",
    transports: { xApiKey: true, googApiKey: true, queryKey: true },
    async handler(ctx) {
      const google = isGoogleCaller(ctx);
      const id = google ? ctx.params.model!.replace(/^models\//, "") : ctx.params.model!;
      const m = (await listModels(ctx.principal)).find((x) => x.id === id);
      if (!m) return google ? errorResponse(errors.modelNotFound(id), "gemini") : ctx.error(errors.modelNotFound(id));
      if (google) return json(200, geminiModel(m));
      return json(200, header(ctx.req, "anthropic-version") !== undefined ? anthropicModel(m) : openaiModel(m));
    },
  },
  {
    method: "GET",
    path: "/v1beta/models",
    transports: { queryKey: true, googApiKey: true },
    async handler(ctx) {
      return json(200, geminiList(await listModels(ctx.principal)));
    },
  },
  {
    method: "GET",
    path: "/v1beta/models/{model}",
    transports: { queryKey: true, googApiKey: true },
    async handler(ctx) {
      const id = ctx.params.model!.replace(/^models\//, "");
      const m = (await listModels(ctx.principal)).find((x) => x.id === id);
      if (!m) return ctx.error(errors.modelNotFound(id));
      return json(200, geminiModel(m));
    },
  },
];
