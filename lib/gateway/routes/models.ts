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

/**
 * Text models also carry what each token class costs (USD per million tokens, the fallbacks to
 * the input/output price resolved), so a client can tell what a cache hit saves. Extra fields:
 * the SDKs keep them.
 */
function pricing(m: ModelSummary): Record<string, number> | undefined {
  if (m.kind !== "text") return undefined;
  const p = textClassPrices(m.price);
  const usd = (micro: number) => micro / 1_000_000;
  return {
    input_per_mtok: usd(p.inputPerMTok),
    output_per_mtok: usd(p.outputPerMTok),
    cache_read_per_mtok: usd(p.cacheReadPerMTok),
    cache_write_5m_per_mtok: usd(p.cacheWrite5mPerMTok),
    cache_write_1h_per_mtok: usd(p.cacheWrite1hPerMTok),
    reasoning_per_mtok: usd(p.reasoningPerMTok),
  };
}
const openaiModel = (m: ModelSummary) => {
  const p = pricing(m);
  return { id: m.id, object: "model", created: m.created, owned_by: m.ownedBy, ...(p ? { pricing: p } : {}) };
};
const anthropicModel = (m: ModelSummary) => ({
  type: "model",
  id: m.id,
  display_name: m.id,
  created_at: new Date(m.created * 1000).toISOString(),
});
const GEMINI_METHODS: Record<ModelSummary["kind"], string[]> = {
  text: ["generateContent", "streamGenerateContent", "countTokens"],
  embedding: ["embedContent", "batchEmbedContents"],
  image: [],
  video: [],
};
const geminiList = (list: ModelSummary[]) => ({ models: list.filter((m) => GEMINI_METHODS[m.kind].length).map(geminiModel) });
const geminiModel = (m: ModelSummary) => ({
  name: `models/${m.id}`,
  baseModelId: m.id,
  version: "1",
  displayName: m.id,
  supportedGenerationMethods: GEMINI_METHODS[m.kind],
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
