/** The gateway config file (GATEWAY_CONFIG): format in docs/configuration.md. Prices in USD here. */
import { z } from "zod";
import { INPUT_MODALITIES, OPENAI_VENDORS, PROVIDERS, UPSTREAM_PROTOCOLS, protocolsWith, type UpstreamCredentials, type UpstreamProtocol, type UpstreamSettings } from "../values";
import { PER_IMAGE_KEY, PER_IMAGE_KEY_HINT, PER_SECOND_KEY, PER_SECOND_KEY_HINT } from "../validate/prices";
import { LIFECYCLE_FIELDS, lifecycleDate, lifecycleDates, lifecycleProblems } from "./lifecycle";

/** The upstream protocols, what each serves and which settings it takes: declared once, lib/values.ts PROVIDERS. */
export const PROTOCOLS = UPSTREAM_PROTOCOLS;
export const KINDS = ["text", "embedding", "image", "video", "speech", "transcription"] as const;
export const FAMILIES = ["t2v", "i2v", "r2v", "extend", "second", "third"] as const;

/** Which model kinds each upstream protocol can serve. */
export const PROTOCOL_KINDS = Object.fromEntries(UPSTREAM_PROTOCOLS.map((p) => [p, PROVIDERS[p].kinds])) as unknown as Record<UpstreamProtocol, readonly (typeof KINDS)[number][]>;

/** Every setting and secret some protocol takes: a config entry's field no declared protocol of its own takes is refused naming it. */
const PROTOCOL_FIELDS = [...new Set(UPSTREAM_PROTOCOLS.flatMap((p): string[] => [...PROVIDERS[p].settings, ...PROVIDERS[p].secrets]))] as (keyof UpstreamSettings | keyof UpstreamCredentials)[];
const quoted = (ps: readonly string[]) => ps.map((p) => `"${p}"`).join(ps.length > 2 ? ", " : " and ").replace(/, ([^,]*)$/, " and $1");

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
  /** `openai`, `anthropic`, `gemini`: batch lines through the vendor's batch API or run by the gateway (decision 0070). */
  batches: z.enum(["native", "gateway"]).optional(),
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
  /** `bedrock`: Claude models through Converse (default) or InvokeModel with Anthropic's Messages body. */
  claudeApi: z.enum(["converse", "invoke"]).optional(),
  /** `bedrock`: a guardrail applied to every Converse call: its id (or ARN) and version, and its trace. */
  guardrailId: z.string().regex(/^(([a-z0-9]+)|(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:guardrail\/[a-z0-9]+))$/, "a guardrail id (or its ARN)").optional(),
  guardrailVersion: z.string().regex(/^(([1-9][0-9]{0,7})|(DRAFT))$/, 'a version number or "DRAFT"').optional(),
  guardrailTrace: z.enum(["enabled", "disabled", "enabled_full"]).optional(),
  /** `vertex`: the project, and the service account's key file or an external-account (workload identity federation) file, its JSON as text or as an object; none: the metadata server. */
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
    /** One amount per second, or by resolution (`{"720p": 0.15, "1080p:audio": 0.4}`, decision 0065). */
    perSecond: z.union([amount, z.record(z.string().regex(PER_SECOND_KEY, PER_SECOND_KEY_HINT), amount).refine((t) => Object.keys(t).length > 0, "needs at least one resolution")], {
        error: `is a USD amount, or USD amounts keyed by resolution. ${PER_SECOND_KEY_HINT}`,
      })
      .optional(),
    /** Text models: the share off every token price for batch lines (0.5 = half price, as every vendor's batch API). */
    batchDiscount: z.number().min(0).max(1).optional(),
    /** Speech and transcription models (docs/audio.md). */
    audioInputPerMTok: amount.optional(),
    audioOutputPerMTok: amount.optional(),
    perMCharacters: amount.optional(),
    /** Image models billed from the vendor's usage (docs/images.md). */
    imageInputPerMTok: amount.optional(),
    imageOutputPerMTok: amount.optional(),
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
  if (kind !== "text" && kind !== "embedding" && p.batchDiscount !== undefined) out.push({ field: "batchDiscount", message: "only text and embedding models have a batch price" });
  if (kind === "embedding") need("inputPerMTok");
  if (kind === "image" && (!p.perImage || Object.keys(p.perImage as object).length === 0)) need("perImage");
  if (kind === "video" && p.perVideo === undefined && p.perSecond === undefined) out.push({ message: "video models need perVideo or perSecond" });
  out.push(...audioPriceProblems(kind, p), ...imagePriceProblems(kind, p));
  return out;
}

/**
 * Image token prices (docs/images.md): only image models have them, and a model billed from
 * usage prices the prompt and the image output, so neither class is charged at $0.
 */
function imagePriceProblems(kind: (typeof KINDS)[number], p: PriceFields): { field?: string; message: string }[] {
  const fields = ["imageInputPerMTok", "imageOutputPerMTok"] as const;
  // A text model that draws (Gemini image models on the text routes, decision 0073) prices its image output apart.
  if (kind === "text") return p.imageInputPerMTok !== undefined ? [{ field: "imageInputPerMTok", message: "only image models have it (a text model's input images are input tokens)" }] : [];
  if (kind !== "image") return fields.filter((f) => p[f] !== undefined).map((field) => ({ field, message: "only image models and text models that draw have it" }));
  const tokens = [...fields, "inputPerMTok", "outputPerMTok"] as const;
  if (!tokens.some((f) => p[f] !== undefined)) return [];
  return (["inputPerMTok", "imageOutputPerMTok"] as const).filter((f) => p[f] === undefined).map((field) => ({ field, message: "required with the other token prices of image models" }));
}

/**
 * Audio prices (docs/audio.md): a speech model is priced per character, per second produced or
 * per token class (text in, audio out); a transcription model per second uploaded or per token
 * class (text and audio in, text out). Exactly one basis, so no class is ever charged at $0.
 */
function audioPriceProblems(kind: (typeof KINDS)[number], p: PriceFields): { field?: string; message: string }[] {
  const audio = kind === "speech" || kind === "transcription";
  const set = (f: keyof PriceFields) => p[f] !== undefined;
  if (!audio) {
    const f = (["audioInputPerMTok", "audioOutputPerMTok", "perMCharacters"] as const).find(set);
    return f ? [{ field: f, message: "only speech and transcription models have it" }] : [];
  }
  const tokens = kind === "speech" ? (["inputPerMTok", "audioOutputPerMTok"] as const) : (["inputPerMTok", "audioInputPerMTok", "outputPerMTok"] as const);
  const bases = [set("perSecond"), tokens.some(set), kind === "speech" && set("perMCharacters")].filter(Boolean).length;
  const out: { field?: string; message: string }[] = [];
  for (const f of ["perImage", "perVideo", ...(kind === "speech" ? ["audioInputPerMTok", "outputPerMTok"] : ["perMCharacters", "audioOutputPerMTok"])] as (keyof PriceFields)[])
    if (set(f)) out.push({ field: f, message: `${kind} models do not have it` });
  // Resolutions are a video's: an audio second has one price.
  if (set("perSecond") && typeof p.perSecond !== "number") out.push({ field: "perSecond", message: `is one amount for ${kind} models` });
  if (bases !== 1)
    out.push({ message: kind === "speech" ? "speech models need one of perMCharacters, perSecond or token prices (inputPerMTok and audioOutputPerMTok)" : "transcription models need perSecond or token prices (inputPerMTok, audioInputPerMTok and outputPerMTok)" });
  else for (const f of tokens) if (tokens.some(set) && !set(f)) out.push({ field: f, message: `required with the other token prices of ${kind} models` });
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

/** A pattern JavaScript compiles (with the `u` flag the gateway uses). */
function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/**
 * A guardrail hook (docs/guardrails.md): a check on the request before any money moves
 * (`pre_request`) or on the answer (`post_response`), built in (`regex`, `pii`) or a signed webhook.
 */
const guardrailBase = {
  id: slug,
  stage: z.enum(["pre_request", "post_response"]),
  /** What a webhook timeout or error does: `closed` (the default) blocks, `open` lets the request through. */
  failPolicy: z.enum(["open", "closed"]).optional(),
  /** How a `post_response` check treats a stream: held whole (`buffer`, the default), all but the last `holdback` characters released as checked, or refused. */
  stream: z.enum(["buffer", "holdback", "reject"]).optional(),
  holdback: z.int().positive().max(100_000).optional(),
  /** Public model ids (as asked), organisation ids and API key ids it applies to; absent = all. */
  models: z.array(slug).min(1).optional(),
  organisations: z.array(z.string().min(1).max(128)).min(1).optional(),
  keys: z.array(z.string().min(1).max(128)).min(1).optional(),
  enabled: z.boolean().optional(),
};

export const guardrailSchema = z.discriminatedUnion("type", [
  z.strictObject({
    ...guardrailBase,
    type: z.literal("regex"),
    pattern: z.string().min(1).max(2000).refine(compiles, "is not a valid regular expression"),
    /** Case-insensitive match. */
    ignoreCase: z.boolean().optional(),
    action: z.enum(["block", "redact"]),
  }),
  z.strictObject({ ...guardrailBase, type: z.literal("pii"), action: z.enum(["block", "redact"]).optional() }),
  z.strictObject({
    ...guardrailBase,
    type: z.literal("webhook"),
    url: z.url({ protocol: /^https?$/ }),
    /** Signs each call like the Events webhooks (x-shim-signature). */
    secret: z.string().min(16),
    timeoutMs: z.int().positive().max(60_000).optional(),
  }),
]).superRefine((g, ctx) => {
  // One schema for the config file and Admin → Guardrails: the checks across fields live here too.
  if ((g.stream !== undefined || g.holdback !== undefined) && g.stage !== "post_response")
    ctx.addIssue({ code: "custom", path: ["stream"], message: "only post_response guardrails have a stream policy" });
  if ((g.stream === "holdback") !== (g.holdback !== undefined))
    ctx.addIssue({ code: "custom", path: ["holdback"], message: 'give holdback (characters) exactly with stream "holdback"' });
});

export const configSchema = z
  .strictObject({
    upstreams: z.array(upstreamSchema),
    models: z.array(modelSchema),
    aliases: z.array(aliasSchema).optional(),
    guardrails: z.array(guardrailSchema).max(64).optional(),
  })
  .superRefine((cfg, ctx) => {
    const ups = new Map<string, (typeof cfg.upstreams)[number]>();
    cfg.upstreams.forEach((u, i) => {
      if (ups.has(u.id)) ctx.addIssue({ code: "custom", path: ["upstreams", i, "id"], message: `duplicate upstream id "${u.id}"` });
      ups.set(u.id, u);
      const decl = PROVIDERS[u.protocol];
      if (!decl.defaultBaseUrl && !u.baseUrl) ctx.addIssue({ code: "custom", path: ["upstreams", i, "baseUrl"], message: `required for protocol "${u.protocol}"` });
      for (const f of PROTOCOL_FIELDS) {
        const has = (decl.settings as readonly string[]).includes(f) || (decl.secrets as readonly string[]).includes(f);
        if (u[f] !== undefined && !has) ctx.addIssue({ code: "custom", path: ["upstreams", i, f], message: `only ${quoted(protocolsWith(f))} upstreams have it` });
      }
      // Vertex without serviceAccount: the metadata server's token (the machine's or the workload's identity).
      for (const f of decl.required) if (!u[f]) ctx.addIssue({ code: "custom", path: ["upstreams", i, f], message: `required for protocol "${u.protocol}"` });
      if (u.protocol === "bedrock") {
        if (!u.guardrailId !== !u.guardrailVersion || (u.guardrailTrace && !u.guardrailId))
          ctx.addIssue({ code: "custom", path: ["upstreams", i, "guardrailId"], message: "give guardrailId and guardrailVersion together (guardrailTrace with them)" });
        if (!u.accessKeyId !== !u.secretAccessKey || (u.sessionToken && !u.accessKeyId))
          ctx.addIssue({ code: "custom", path: ["upstreams", i, "accessKeyId"], message: "give accessKeyId and secretAccessKey together (sessionToken with them), or none for the AWS credential chain" });
      }
      if (u.protocol === "azure-openai") {
        // A clientId without a secret is a user-assigned managed identity; neither key nor secret: the system-assigned one.
        const entra = u.clientSecret !== undefined;
        if ((entra || u.clientId !== undefined) && u.apiKey) ctx.addIssue({ code: "custom", path: ["upstreams", i, "apiKey"], message: "give an apiKey or Entra ID credentials, not both" });
        else if (entra && !(u.clientId && (u.tenantId || u.tokenUrl)))
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
    const guardIds = new Set<string>();
    cfg.guardrails?.forEach((g, i) => {
      if (guardIds.has(g.id)) ctx.addIssue({ code: "custom", path: ["guardrails", i, "id"], message: `duplicate guardrail id "${g.id}"` });
      guardIds.add(g.id);
    });
  });

export type GatewayConfig = z.infer<typeof configSchema>;
export type UpstreamConfig = z.infer<typeof upstreamSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type AliasConfig = z.infer<typeof aliasSchema>;
export type GuardrailConfig = z.infer<typeof guardrailSchema>;
