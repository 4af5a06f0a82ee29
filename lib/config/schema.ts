/** The gateway config file (GATEWAY_CONFIG): format in docs/configuration.md. Prices in USD here. */
import { z } from "zod";
import { INPUT_MODALITIES, OPENAI_VENDORS } from "../../db/schema";
import { PER_IMAGE_KEY, PER_IMAGE_KEY_HINT } from "../validate/prices";
import { LIFECYCLE_FIELDS, lifecycleDate, lifecycleDates, lifecycleProblems } from "./lifecycle";

export const PROTOCOLS = ["openai", "openai-responses", "anthropic", "gemini", "openai-video", "azure-openai", "bedrock", "vertex", "demo"] as const;
export const KINDS = ["text", "embedding", "image", "video"] as const;
export const FAMILIES = ["t2v", "i2v", "r2v", "extend", "second", "third"] as const;

/** Which model kinds each upstream protocol can serve. */
export const PROTOCOL_KINDS: Record<(typeof PROTOCOLS)[number], readonly (typeof KINDS)[number][]> = {
  openai: ["text", "embedding", "image"],
  "openai-responses": ["text"],
  anthropic: ["text"],
  gemini: ["text", "embedding"],
  "openai-video": ["video"],
  "azure-openai": ["text", "embedding", "image"],
  bedrock: ["text"],
  vertex: ["text"],
  demo: ["text", "embedding", "image", "video"],
};

/** Prices of token classes billed apart from plain input/output (text models only). */
export const TEXT_CLASS_PRICES = ["cacheReadPerMTok", "cacheWrite5mPerMTok", "cacheWrite1hPerMTok", "reasoningPerMTok"] as const;

const usd = z.number().finite().nonnegative().max(1_000_000);
const slug = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/, "must be 1–128 letters, digits or . _ : / -");

export const upstreamSchema = z.strictObject({
  id: slug,
  protocol: z.enum(PROTOCOLS),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().min(1).optional(),
  timeoutMs: z.int().positive().max(3_600_000).optional(),
  /** `openai` upstreams: the vendor whose dialect it speaks (usage, reasoning, parameters); default "openai". */
  vendor: z.enum(OPENAI_VENDORS).optional(),
  /** `azure-openai`: "v1" (default) or a dated API version such as "2024-10-21". */
  apiVersion: z.string().regex(/^(v1|\d{4}-\d{2}-\d{2}(-preview)?)$/, 'is "v1" or a dated version like 2024-10-21').optional(),
  /** `azure-openai`: serve text models through Chat Completions (default) or the Responses API. */
  textApi: z.enum(["chat", "responses"]).optional(),
  /** `azure-openai` with Entra ID instead of an `apiKey`: the app registration (client credentials). */
  tenantId: z.string().min(1).max(128).optional(),
  clientId: z.string().min(1).max(128).optional(),
  clientSecret: z.string().min(1).optional(),
  /** The token endpoint; default Microsoft's for `tenantId`. */
  tokenUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** `bedrock`: the AWS region, and static keys (none: the AWS SDK's default credential chain); `vertex`: the location. */
  region: z.string().regex(/^[a-z][a-z0-9-]{1,30}$/, "a region such as us-east-1 (AWS) or us-central1, global (Google)").optional(),
  accessKeyId: z.string().min(1).optional(),
  secretAccessKey: z.string().min(1).optional(),
  sessionToken: z.string().min(1).optional(),
  /** `vertex`: the project, and the service account's key file (its JSON, as text or as an object). */
  project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "a Google Cloud project id").optional(),
  serviceAccount: z.union([z.string().min(2), z.looseObject({})]).transform((v) => (typeof v === "string" ? v : JSON.stringify(v))).optional(),
  enabled: z.boolean().optional(),
});

/** The price shape, with the amount's own parser (the config file takes numbers, the admin API strings too). */
export function priceShape(amount: z.ZodType<number>) {
  return z.strictObject({
    inputPerMTok: amount.optional(),
    outputPerMTok: amount.optional(),
    /** Text models: token classes priced apart (docs/billing.md); absent = the input (or output) price. */
    cacheReadPerMTok: amount.optional(),
    cacheWrite5mPerMTok: amount.optional(),
    cacheWrite1hPerMTok: amount.optional(),
    reasoningPerMTok: amount.optional(),
    perImage: z.record(z.string().regex(PER_IMAGE_KEY, PER_IMAGE_KEY_HINT), amount).optional(),
    perVideo: amount.optional(),
    perSecond: amount.optional(),
  });
}

export const priceSchema = priceShape(usd);

type PriceFields = Partial<Record<keyof z.infer<typeof priceSchema>, unknown>>;

/**
 * What a model of `kind` must and must not be priced with. The config file and the admin editor
 * both ask this, so every price a model can be given is one the engine charges (a text model
 * without an output price would bill output at $0).
 */
export function priceProblems(kind: (typeof KINDS)[number], p: PriceFields): { field?: string; message: string }[] {
  const out: { field?: string; message: string }[] = [];
  const need = (field: keyof PriceFields) => {
    if (p[field] === undefined) out.push({ field, message: `required for ${kind} models` });
  };
  if (kind === "text") (need("inputPerMTok"), need("outputPerMTok"));
  else for (const f of TEXT_CLASS_PRICES) if (p[f] !== undefined) out.push({ field: f, message: "only text models have token-class prices" });
  if (kind === "embedding") need("inputPerMTok");
  if (kind === "image" && (!p.perImage || Object.keys(p.perImage as object).length === 0)) need("perImage");
  if (kind === "video" && p.perVideo === undefined && p.perSecond === undefined) out.push({ message: "video models need perVideo or perSecond" });
  return out;
}

export const modelSchema = z.strictObject({
  id: slug,
  kind: z.enum(KINDS),
  upstream: slug,
  upstreamModel: z.string().min(1).optional(),
  ownedBy: z.string().min(1).max(64).optional(),
  family: z.enum(FAMILIES).optional(),
  price: priceSchema,
  /** The model's output cap; `defaultMaxTokens` is its older name. */
  maxOutputTokens: z.int().positive().max(10_000_000).optional(),
  defaultMaxTokens: z.int().positive().max(10_000_000).optional(),
  contextWindow: z.int().positive().max(100_000_000).optional(),
  inputModalities: z.array(z.enum(INPUT_MODALITIES)).optional(),
  /** Refuse hints (knobs the upstream lacks) with a 400 instead of dropping them. */
  strict: z.boolean().optional(),
  /** Routing tier among the id's entries, lower first; default: the entry's position among them (file order). */
  priority: z.int().min(0).max(1000).optional(),
  /** Share of its tier's requests; default 1; 0 = standby (only after the rest of its tier). */
  weight: z.int().min(0).max(1000).optional(),
  /** Lifecycle (decision 0051); entries sharing an id share it, like the price. */
  deprecatedAt: lifecycleDate.optional(),
  shutdownAt: lifecycleDate.optional(),
  successor: slug.optional(),
  serveSuccessorAfterShutdown: z.boolean().optional(),
  enabled: z.boolean().optional(),
});

/** An alias name, or a pattern with `*` wildcards (`claude-sonnet-4-5-*`, `gemini-*-flash`). */
export const aliasIdSchema = z.string().regex(/^[A-Za-z0-9*][A-Za-z0-9._:/*-]{0,127}$/, "must be 1–128 letters, digits, * or . _ : / -");

export const aliasSchema = z.strictObject({
  id: aliasIdSchema,
  /** Public model ids tried in this order; the serving one's price is charged. */
  targets: z.array(slug).min(1).max(16),
  /** A prompt whose bound exceeds a target's contextWindow goes to the next target. */
  contextFallback: z.boolean().optional(),
  enabled: z.boolean().optional(),
});

export const configSchema = z
  .strictObject({
    upstreams: z.array(upstreamSchema),
    models: z.array(modelSchema),
    aliases: z.array(aliasSchema).optional(),
  })
  .superRefine((cfg, ctx) => {
    const ups = new Map<string, (typeof cfg.upstreams)[number]>();
    cfg.upstreams.forEach((u, i) => {
      if (ups.has(u.id)) ctx.addIssue({ code: "custom", path: ["upstreams", i, "id"], message: `duplicate upstream id "${u.id}"` });
      ups.set(u.id, u);
      if (u.protocol !== "demo" && u.protocol !== "bedrock" && u.protocol !== "vertex" && !u.baseUrl)
        ctx.addIssue({ code: "custom", path: ["upstreams", i, "baseUrl"], message: `required for protocol "${u.protocol}"` });
      if (u.vendor && u.protocol !== "openai")
        ctx.addIssue({ code: "custom", path: ["upstreams", i, "vendor"], message: `only "openai" upstreams have a vendor` });
      for (const f of ["apiVersion", "textApi", "tenantId", "clientId", "clientSecret"] as const)
        if (u[f] !== undefined && u.protocol !== "azure-openai")
          ctx.addIssue({ code: "custom", path: ["upstreams", i, f], message: `only "azure-openai" upstreams have it` });
      for (const f of ["accessKeyId", "secretAccessKey", "sessionToken"] as const)
        if (u[f] !== undefined && u.protocol !== "bedrock") ctx.addIssue({ code: "custom", path: ["upstreams", i, f], message: `only "bedrock" upstreams have it` });
      for (const f of ["project", "serviceAccount"] as const)
        if (u[f] !== undefined && u.protocol !== "vertex") ctx.addIssue({ code: "custom", path: ["upstreams", i, f], message: `only "vertex" upstreams have it` });
      if (u.region !== undefined && u.protocol !== "bedrock" && u.protocol !== "vertex")
        ctx.addIssue({ code: "custom", path: ["upstreams", i, "region"], message: `only "bedrock" and "vertex" upstreams have it` });
      if (u.tokenUrl !== undefined && u.protocol !== "azure-openai" && u.protocol !== "vertex")
        ctx.addIssue({ code: "custom", path: ["upstreams", i, "tokenUrl"], message: `only "azure-openai" and "vertex" upstreams have it` });
      if (u.protocol === "vertex")
        for (const f of ["project", "region", "serviceAccount"] as const)
          if (!u[f]) ctx.addIssue({ code: "custom", path: ["upstreams", i, f], message: 'required for protocol "vertex"' });
      if (u.protocol === "bedrock") {
        if (!u.region) ctx.addIssue({ code: "custom", path: ["upstreams", i, "region"], message: 'required for protocol "bedrock"' });
        if (!u.accessKeyId !== !u.secretAccessKey || (u.sessionToken && !u.accessKeyId))
          ctx.addIssue({ code: "custom", path: ["upstreams", i, "accessKeyId"], message: "give accessKeyId and secretAccessKey together (sessionToken with them), or none for the AWS credential chain" });
      }
      if (u.protocol === "azure-openai") {
        const entra = u.clientId !== undefined || u.clientSecret !== undefined;
        if (entra && u.apiKey) ctx.addIssue({ code: "custom", path: ["upstreams", i, "apiKey"], message: "give an apiKey or Entra ID credentials, not both" });
        else if (entra && !(u.clientId && u.clientSecret && (u.tenantId || u.tokenUrl)))
          ctx.addIssue({ code: "custom", path: ["upstreams", i, "clientId"], message: "Entra ID needs clientId, clientSecret and tenantId (or tokenUrl)" });
      }
    });
    const byId = new Map<string, (typeof cfg.models)[number]>();
    const pairs = new Set<string>();
    cfg.models.forEach((m, i) => {
      const at = (...p: (string | number)[]) => ["models", i, ...p];
      const up = ups.get(m.upstream);
      if (!up) {
        ctx.addIssue({ code: "custom", path: at("upstream"), message: `no upstream with id "${m.upstream}"` });
        return;
      }
      if (!PROTOCOL_KINDS[up.protocol].includes(m.kind))
        ctx.addIssue({ code: "custom", path: at("kind"), message: `upstream "${up.id}" (${up.protocol}) cannot serve ${m.kind} models` });
      const pair = `${m.id}\u0000${m.upstream}`;
      if (pairs.has(pair)) ctx.addIssue({ code: "custom", path: at("id"), message: `model "${m.id}" is listed twice for upstream "${m.upstream}"` });
      pairs.add(pair);
      for (const problem of priceProblems(m.kind, m.price))
        ctx.addIssue({ code: "custom", path: problem.field ? at("price", problem.field) : at("price"), message: problem.message });
      if (m.maxOutputTokens !== undefined && m.defaultMaxTokens !== undefined && m.maxOutputTokens !== m.defaultMaxTokens)
        ctx.addIssue({ code: "custom", path: at("defaultMaxTokens"), message: "is the older name of maxOutputTokens: give one of them" });
      for (const f of ["maxOutputTokens", "defaultMaxTokens", "contextWindow"] as const)
        if (m[f] !== undefined && m.kind !== "text") ctx.addIssue({ code: "custom", path: at(f), message: "only text models have it" });
      if (m.family && m.kind !== "video") ctx.addIssue({ code: "custom", path: at("family"), message: "only video models have a family" });
      const first = byId.get(m.id);
      if (first) {
        if (first.kind !== m.kind) ctx.addIssue({ code: "custom", path: at("kind"), message: `entries for "${m.id}" must share one kind` });
        if (JSON.stringify(first.price) !== JSON.stringify(m.price))
          ctx.addIssue({ code: "custom", path: at("price"), message: `entries for "${m.id}" must share one price` });
        if (m.kind === "embedding" && (first.upstreamModel ?? first.id) !== (m.upstreamModel ?? m.id))
          ctx.addIssue({
            code: "custom",
            path: at("upstreamModel"),
            message: `embedding entries for "${m.id}" must share one upstreamModel (vectors of different models never mix)`,
          });
        for (const f of LIFECYCLE_FIELDS)
          if (first[f] !== m[f]) ctx.addIssue({ code: "custom", path: at(f), message: `entries for "${m.id}" must share one ${f}` });
      } else byId.set(m.id, m);
    });
    cfg.models.forEach((m, i) => {
      for (const problem of lifecycleProblems({ ...m, ...lifecycleDates(m) }, (id) => byId.get(id)?.kind))
        ctx.addIssue({ code: "custom", path: ["models", i, problem.field], message: problem.message });
    });
    const aliasIds = new Set<string>();
    cfg.aliases?.forEach((a, i) => {
      const at = (...p: (string | number)[]) => ["aliases", i, ...p];
      if (aliasIds.has(a.id)) ctx.addIssue({ code: "custom", path: at("id"), message: `duplicate alias "${a.id}"` });
      aliasIds.add(a.id);
      if (byId.has(a.id)) ctx.addIssue({ code: "custom", path: at("id"), message: `"${a.id}" is a model id; an alias needs a name of its own` });
      const kinds = new Set<string>();
      a.targets.forEach((t, j) => {
        const target = byId.get(t);
        if (!target) ctx.addIssue({ code: "custom", path: at("targets", j), message: `no model with id "${t}" (targets are model ids, not aliases)` });
        else kinds.add(target.kind);
      });
      if (kinds.size > 1) ctx.addIssue({ code: "custom", path: at("targets"), message: "targets must share one kind" });
      if (kinds.has("embedding") && a.targets.length > 1)
        ctx.addIssue({ code: "custom", path: at("targets"), message: "an embedding alias names one target (vectors of different models never mix)" });
    });
  });

export type GatewayConfig = z.infer<typeof configSchema>;
export type UpstreamConfig = z.infer<typeof upstreamSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type AliasConfig = z.infer<typeof aliasSchema>;
