/**
 * Admin: upstreams, models and prices. Changes are written to the database, audited, and
 * announced with a catalog invalidation so running gateways reload without a restart. Upstream
 * API keys are encrypted at rest and never returned: the views only say whether one is set.
 */
import { and, asc, count, desc, eq, gte, inArray, lte, max } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { accounts, apiKeys, INPUT_MODALITIES, models, OPENAI_VENDORS, requestLogs, upstreams, type ModelPrice, type UpstreamCredentials, type UpstreamSettings } from "../../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import { priceToMicro } from "../config/apply";
import { lifecycleDate, lifecycleProblems, type LifecycleFields } from "../config/lifecycle";
import { FAMILIES, KINDS, PROTOCOL_KINDS, PROTOCOLS, priceProblems, priceShape } from "../config/schema";
import { PROVIDERS, UPSTREAM_PROTOCOLS } from "../values";
import { invalidateCatalog } from "../gateway/catalog";
import { PROVIDER_IMPLEMENTATIONS } from "../gateway/upstreams/registry";
import { isExternalAccount } from "../gateway/upstreams/google-workload-token";
import type { Actor } from "./admin-users";
import { auditDiff, recordAudit } from "./audit";
import { AppError, pgErrorCode } from "./errors";
import { newId } from "../ids";
import type { AdminUpstreamView, AdminModelView, DeprecatedCallerView } from "../views";

/** The settings and secrets each protocol has (lib/values.ts PROVIDERS); any other is refused naming it. */
const SETTING_KEYS = [...new Set(UPSTREAM_PROTOCOLS.flatMap((p) => PROVIDERS[p].settings))] as (keyof UpstreamSettings)[];
/** The secrets beyond `apiKey` (db/schema.ts UpstreamCredentials), kept encrypted together. */
const SECRET_KEYS = [...new Set(UPSTREAM_PROTOCOLS.flatMap((p) => PROVIDERS[p].secrets))] as (keyof UpstreamCredentials)[];

export async function listUpstreams(db: DB): Promise<AdminUpstreamView[]> {
  const rows = await db.select().from(upstreams).orderBy(asc(upstreams.id));
  return rows.map(({ apiKeyEncrypted, credentialsEncrypted, ...u }) => ({
    ...u,
    hasApiKey: Boolean(apiKeyEncrypted),
    /** Secrets beyond the key are set (an Entra client secret, AWS keys); which, never. */
    hasCredentials: Boolean(credentialsEncrypted),
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
  }));
}

const baseUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((s) => /^https?:\/\/[^\s]+$/.test(s) && URL.canParse(s), "Enter an http(s) URL.");

export const createUpstreamSchema = z.object({
  id: z.string().trim().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "Lower-case letters, digits, - and _ (start with a letter or digit)."),
  protocol: z.enum(PROTOCOLS),
  baseUrl: z.union([z.literal(""), baseUrl]).default(""),
  apiKey: z.string().max(4096).optional(),
  timeoutMs: z.union([z.null(), z.coerce.number().int().min(1000).max(3_600_000)]).optional(),
  ...settingFields(),
  enabled: z.boolean().default(true),
});

export const updateUpstreamSchema = z.object({
  baseUrl: z.union([z.literal(""), baseUrl]).optional(),
  /** Omitted = unchanged, "" = remove. */
  apiKey: z.string().max(4096).optional(),
  timeoutMs: z.union([z.null(), z.coerce.number().int().min(1000).max(3_600_000)]).optional(),
  ...settingFields(),
  enabled: z.boolean().optional(),
});

/** The protocol settings and the Entra client secret; each omitted = unchanged, "" = removed. */
function settingFields() {
  const id = z.string().trim().max(128).regex(/^[A-Za-z0-9._-]*$/, "Letters, digits, . _ and - only.");
  return {
    /** `openai`: whose dialect it speaks (lib/gateway/upstreams/openai-vendors.ts). */
    vendor: z.enum(OPENAI_VENDORS).optional(),
    /** `openai`, `anthropic`, `gemini`: batch lines through the vendor's batch API or the gateway (decision 0070). */
    batches: z.union([z.literal(""), z.enum(["native", "gateway"])]).optional(),
    /** `azure-openai`: "v1" or a dated API version; the text API; Entra ID's app registration. */
    apiVersion: z.union([z.literal(""), z.string().trim().regex(/^(v1|\d{4}-\d{2}-\d{2}(-preview)?)$/, 'Use "v1" or a dated version like 2024-10-21.')]).optional(),
    textApi: z.union([z.literal(""), z.enum(["chat", "responses"])]).optional(),
    tenantId: id.optional(),
    clientId: id.optional(),
    tokenUrl: z.union([z.literal(""), baseUrl]).optional(),
    /** `bedrock`: the AWS region; static keys (none: the AWS credential chain). */
    region: z.union([z.literal(""), z.string().trim().regex(/^[a-z][a-z0-9-]{1,30}$/, "A region such as us-east-1 (AWS) or us-central1 (Google).")]).optional(),
    /** `bedrock`: how Claude models are called; a guardrail on every Converse call. */
    claudeApi: z.union([z.literal(""), z.enum(["converse", "invoke"])]).optional(),
    guardrailId: z.union([z.literal(""), z.string().trim().max(2048).regex(/^(([a-z0-9]+)|(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:guardrail\/[a-z0-9]+))$/, "A guardrail id (or its ARN).")]).optional(),
    guardrailVersion: z.union([z.literal(""), z.string().trim().regex(/^(([1-9][0-9]{0,7})|(DRAFT))$/, 'A version number or "DRAFT".')]).optional(),
    guardrailTrace: z.union([z.literal(""), z.enum(["enabled", "disabled", "enabled_full"])]).optional(),
    clientSecret: z.string().max(4096).optional(),
    accessKeyId: z.string().trim().max(128).optional(),
    secretAccessKey: z.string().max(4096).optional(),
    sessionToken: z.string().max(8192).optional(),
    /** `vertex`: the project; the service account's key file, its JSON as text. */
    project: z.union([z.literal(""), z.string().trim().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "A Google Cloud project id.")]).optional(),
    serviceAccount: z
      .string()
      .max(16_384)
      .refine((v) => v === "" || isServiceAccountKey(v), "Paste the service account's JSON key file (with client_email and private_key), or an external-account (workload identity federation) file.")
      .optional(),
  };
}

function isServiceAccountKey(text: string): boolean {
  try {
    const k = JSON.parse(text) as { client_email?: unknown; private_key?: unknown };
    return (typeof k.client_email === "string" && typeof k.private_key === "string") || isExternalAccount(k);
  } catch {
    return false;
  }
}

type SettingInput = Partial<Record<keyof UpstreamSettings | keyof UpstreamCredentials, string>>;

/** The settings after `body`'s changes, or an error naming a setting this protocol does not have. */
function settingsFor(protocol: (typeof PROTOCOLS)[number], old: UpstreamSettings, body: SettingInput): UpstreamSettings {
  const allowed: readonly string[] = PROVIDERS[protocol].settings;
  const out: Record<string, unknown> = { ...old };
  const secrets: readonly string[] = PROVIDERS[protocol].secrets;
  for (const k of [...SETTING_KEYS, ...SECRET_KEYS]) {
    const v = body[k];
    if (v === undefined) continue;
    const secret = (SECRET_KEYS as readonly string[]).includes(k);
    if (secret ? !secrets.includes(k) : !allowed.includes(k)) throw new AppError("invalid_request", `An upstream of protocol ${protocol} has no ${k}.`, { field: k });
    if (secret) continue;
    if (v === "") delete out[k];
    else out[k] = v;
  }
  // A guardrail is applied only with both (bedrock-converse.ts): half of one would be silently ignored.
  if (protocol === "bedrock" && (!out.guardrailId !== !out.guardrailVersion || (out.guardrailTrace && !out.guardrailId)))
    throw new AppError("invalid_request", "Give the guardrail's id and version together (its trace only with them).", { field: out.guardrailId ? "guardrailVersion" : "guardrailId" });
  return out as UpstreamSettings;
}

/** Encrypted credentials after `body`'s changes to the old ones ("" removes one): undefined = unchanged. */
function credentialsFor(oldEncrypted: string | null, body: SettingInput): string | null | undefined {
  if (SECRET_KEYS.every((k) => body[k] === undefined)) return undefined;
  const out: UpstreamCredentials = oldEncrypted ? (JSON.parse(decryptSecret(oldEncrypted)) as UpstreamCredentials) : {};
  for (const k of SECRET_KEYS) {
    const v = body[k];
    if (v === "") delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length ? encryptSecret(JSON.stringify(out)) : null;
}

async function changed(db: DB, actor: Actor, action: string, targetType: string, targetId: string, details: Record<string, unknown>) {
  await recordAudit(db, { actorUserId: actor.id, actor: actor.email, action, targetType, targetId, details });
  await invalidateCatalog();
}

export async function createUpstream(db: DB, actor: Actor, body: z.infer<typeof createUpstreamSchema>) {
  if (!PROVIDERS[body.protocol].defaultBaseUrl && !body.baseUrl) throw new AppError("invalid_request", "A base URL is required.", { field: "baseUrl" });
  const settings = settingsFor(body.protocol, {}, body);
  const [exists] = await db.select({ id: upstreams.id }).from(upstreams).where(eq(upstreams.id, body.id));
  if (exists) throw new AppError("conflict", `An upstream "${body.id}" already exists.`, { field: "id" });
  await db.insert(upstreams).values({
    id: body.id,
    protocol: body.protocol,
    baseUrl: body.baseUrl,
    apiKeyEncrypted: body.apiKey ? encryptSecret(body.apiKey) : null,
    timeoutMs: body.timeoutMs ?? null,
    settings,
    credentialsEncrypted: credentialsFor(null, body) ?? null,
    enabled: body.enabled,
    source: "console",
  });
  await changed(db, actor, "upstream.create", "upstream", body.id, { protocol: body.protocol, baseUrl: body.baseUrl, apiKey: body.apiKey ? "set" : "none", ...settings, ...(credentialsFor(null, body) ? { credentials: "set" } : {}) });
  return { id: body.id };
}

export async function updateUpstream(db: DB, actor: Actor, id: string, body: z.infer<typeof updateUpstreamSchema>) {
  const set: Partial<typeof upstreams.$inferInsert> = { updatedAt: new Date() };
  if (body.baseUrl !== undefined) set.baseUrl = body.baseUrl;
  if (body.apiKey !== undefined) set.apiKeyEncrypted = body.apiKey ? encryptSecret(body.apiKey) : null;
  if (body.timeoutMs !== undefined) set.timeoutMs = body.timeoutMs;
  if (body.enabled !== undefined) set.enabled = body.enabled;
  const [old] = await db.select().from(upstreams).where(eq(upstreams.id, id));
  if (!old) throw new AppError("not_found", "No such upstream.");
  set.settings = settingsFor(old.protocol as (typeof PROTOCOLS)[number], old.settings, body);
  const credentials = credentialsFor(old.credentialsEncrypted, body);
  if (credentials !== undefined) set.credentialsEncrypted = credentials;
  const rows = await db.update(upstreams).set(set).where(eq(upstreams.id, id)).returning({ id: upstreams.id });
  if (!rows.length) throw new AppError("not_found", "No such upstream.");
  // The key itself is never audited: only whether one is set, and that it was replaced.
  const hadKey = old.apiKeyEncrypted ? "set" : "none";
  const apiKey = body.apiKey === undefined ? hadKey : body.apiKey ? (old.apiKeyEncrypted ? "replaced" : "set") : "none";
  // Nor the other secrets (an Entra client secret, AWS keys): only whether some are set.
  const hadSecret = old.credentialsEncrypted ? "set" : "none";
  const secrets = credentials === undefined ? hadSecret : credentials ? (old.credentialsEncrypted ? "replaced" : "set") : "none";
  const { updatedAt: _u, apiKeyEncrypted: _k, settings: _s, credentialsEncrypted: _c, ...plainSet } = set;
  const was = { baseUrl: old.baseUrl, timeoutMs: old.timeoutMs, enabled: old.enabled, apiKey: hadKey, credentials: hadSecret, ...old.settings };
  await changed(db, actor, "upstream.update", "upstream", id, auditDiff(was, { baseUrl: old.baseUrl, timeoutMs: old.timeoutMs, enabled: old.enabled, ...plainSet, apiKey, credentials: secrets, ...set.settings }));
  return { id };
}

/** A cheap authenticated call to the upstream's model list: reachable, and is the key accepted? */
export async function testUpstream(db: DB, id: string, fetcher: typeof fetch = fetch) {
  const [u] = await db.select().from(upstreams).where(eq(upstreams.id, id));
  if (!u) throw new AppError("not_found", "No such upstream.");
  const key = u.apiKeyEncrypted ? decryptSecret(u.apiKeyEncrypted) : null;
  const info = { id: u.id, protocol: u.protocol, baseUrl: u.baseUrl, apiKey: key, timeoutMs: null, settings: u.settings, credentials: u.credentialsEncrypted ? (JSON.parse(decryptSecret(u.credentialsEncrypted)) as UpstreamCredentials) : undefined };
  // The protocol's own probe (the provider registry): the request to send, or why there is none.
  const probe = await PROVIDER_IMPLEMENTATIONS[u.protocol].probe(info);
  if ("nothing" in probe) return { ok: true, status: 200, latencyMs: 0, message: probe.nothing };
  if ("problem" in probe) return { ok: false, status: 0, latencyMs: 0, message: probe.problem };
  const { url, headers } = probe;
  const started = performance.now();
  try {
    const res = await fetcher(url, { headers, signal: AbortSignal.timeout(10_000), redirect: "manual" });
    await res.body?.cancel().catch(() => undefined);
    const latencyMs = Math.round(performance.now() - started);
    const message = res.ok
      ? "Connected; the upstream accepted the credentials."
      : res.status === 401 || res.status === 403
        ? "Reached the upstream, but it refused the API key."
        : `Reached the upstream; it answered HTTP ${res.status}.`;
    return { ok: res.ok, status: res.status, latencyMs, message };
  } catch (err) {
    const latencyMs = Math.round(performance.now() - started);
    const reason = (err as Error).name === "TimeoutError" ? "timed out after 10 s" : ((err as { cause?: { code?: string } }).cause?.code ?? "connection failed");
    return { ok: false, status: 0, latencyMs, message: `Could not reach the upstream: ${reason}.` };
  }
}

export async function listModels(db: DB): Promise<AdminModelView[]> {
  const rows = await db.select().from(models).orderBy(asc(models.modelId), asc(models.priority));
  return rows.map((m) => ({
    ...m,
    deprecatedAt: m.deprecatedAt?.toISOString() ?? null,
    shutdownAt: m.shutdownAt?.toISOString() ?? null,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  }));
}

/**
 * The keys that called a deprecated model (deprecatedAt passed) in the last 30 days, by the id
 * they asked for, so an admin knows whom to tell before the shutdown. One statement; the key
 * must belong to the row's account. Admin-only: it spans every organisation.
 */
export async function deprecatedModelCallers(db: DB, now = new Date()): Promise<DeprecatedCallerView[]> {
  const since = new Date(now.getTime() - 30 * 86_400_000);
  const deprecated = db.selectDistinct({ id: models.modelId }).from(models).where(lte(models.deprecatedAt, now));
  const rows = await db
    .select({
      model: requestLogs.model,
      keyId: requestLogs.keyId,
      keyName: apiKeys.name,
      keyPrefix: apiKeys.prefix,
      accountId: requestLogs.accountId,
      accountName: accounts.name,
      requests: count(),
      lastAt: max(requestLogs.createdAt),
    })
    .from(requestLogs)
    .innerJoin(apiKeys, and(eq(apiKeys.id, requestLogs.keyId), eq(apiKeys.accountId, requestLogs.accountId)))
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(gte(requestLogs.createdAt, since), inArray(requestLogs.model, deprecated)))
    .groupBy(requestLogs.model, requestLogs.keyId, apiKeys.name, apiKeys.prefix, requestLogs.accountId, accounts.name)
    .orderBy(asc(requestLogs.model), desc(max(requestLogs.createdAt)))
    .limit(500);
  return rows.map((r) => ({ ...r, model: r.model!, keyId: r.keyId!, accountId: r.accountId!, lastAt: r.lastAt ? new Date(r.lastAt).toISOString() : null }));
}

const usd = z.coerce.number().min(0, "Prices cannot be negative.").max(1_000_000);

/** Prices as USD numbers in the API (per million tokens, per image, per video, per second): the config file's shape. */
export const priceSchema = priceShape(usd);

/** The config file's rules (lib/config/schema.ts `priceProblems`), answered as the console's 400. */
export function checkPrice(kind: (typeof KINDS)[number], price: ModelPrice) {
  const [problem] = priceProblems(kind, price);
  if (problem) throw new AppError("invalid_request", `Price${problem.field ? ` ${problem.field}` : ""}: ${problem.message}.`, { field: "price" });
}

/** Which kinds an upstream's protocol serves (the same table the config file is checked with). */
export function checkServes(protocol: string, kind: (typeof KINDS)[number]) {
  const kinds = PROTOCOL_KINDS[protocol as (typeof PROTOCOLS)[number]] ?? [];
  if (!kinds.includes(kind)) throw new AppError("invalid_request", `A ${protocol} upstream cannot serve ${kind} models (it serves ${kinds.join(", ") || "none"}).`, { field: "kind" });
}

export const createModelSchema = z.object({
  modelId: z.string().trim().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/, "Letters, digits and . _ : / - only."),
  upstreamId: z.string().min(1, "Pick an upstream."),
  upstreamModel: z.string().trim().max(200).optional(),
  kind: z.enum(KINDS),
  family: z.enum(FAMILIES).nullable().optional(),
  ownedBy: z.string().trim().min(1, "Who owns the model (e.g. openai)?").max(100),
  price: priceSchema,
  defaultMaxTokens: z.union([z.null(), z.coerce.number().int().min(1).max(10_000_000)]).optional(),
  contextWindow: z.union([z.null(), z.coerce.number().int().min(1).max(100_000_000)]).optional(),
  inputModalities: z.union([z.null(), z.array(z.enum(INPUT_MODALITIES))]).optional(),
  /** Routing tier; omitted = after the id's existing entries (a fallback). Equal priorities share load by weight. */
  priority: z.coerce.number().int().min(0).max(1000).optional(),
  /** Share of its priority tier's requests (0 = standby). */
  weight: z.coerce.number().int().min(0).max(1000).default(1),
  /** Refuse hints instead of dropping them (docs/conversion-policy.md). */
  strict: z.boolean().optional(),
  /** Lifecycle (decision 0051): null or "" clears; shared by every route of the id, like the price. */
  deprecatedAt: z.union([z.null(), z.literal(""), lifecycleDate]).optional(),
  shutdownAt: z.union([z.null(), z.literal(""), lifecycleDate]).optional(),
  successor: z.union([z.null(), z.string().trim().max(128)]).optional(),
  serveSuccessorAfterShutdown: z.boolean().optional(),
  enabled: z.boolean().default(true),
});

type LifecycleBody = Pick<z.infer<typeof createModelSchema>, "deprecatedAt" | "shutdownAt" | "successor" | "serveSuccessorAfterShutdown">;
const LIFECYCLE_NONE: Required<LifecycleFields> = { deprecatedAt: null, shutdownAt: null, successor: null, serveSuccessorAfterShutdown: false };

/**
 * The id's lifecycle after this change (omitted fields keep `was`), checked with the config
 * file's rules against the catalog; undefined when the body touches none of it.
 */
async function lifecycleChange(db: DB, modelId: string, kind: string, body: LifecycleBody, was: Required<LifecycleFields>) {
  if (body.deprecatedAt === undefined && body.shutdownAt === undefined && body.successor === undefined && body.serveSuccessorAfterShutdown === undefined) return undefined;
  const date = (v: string | null | undefined, old: Date | null) => (v === undefined ? old : v ? new Date(v) : null);
  const next: Required<LifecycleFields> = {
    deprecatedAt: date(body.deprecatedAt, was.deprecatedAt),
    shutdownAt: date(body.shutdownAt, was.shutdownAt),
    successor: body.successor === undefined ? was.successor : body.successor || null,
    serveSuccessorAfterShutdown: body.serveSuccessorAfterShutdown ?? was.serveSuccessorAfterShutdown,
  };
  const [succ] = next.successor ? await db.select({ kind: models.kind }).from(models).where(eq(models.modelId, next.successor)).limit(1) : [];
  const [problem] = lifecycleProblems({ id: modelId, kind, ...next }, () => succ?.kind);
  if (problem) throw new AppError("invalid_request", `${problem.field}: ${problem.message}.`, { field: problem.field });
  return next;
}

export const updateModelSchema = createModelSchema.omit({ modelId: true, upstreamId: true, kind: true }).partial();

export async function createModel(db: DB, actor: Actor, body: z.infer<typeof createModelSchema>) {
  const [u] = await db.select({ id: upstreams.id, protocol: upstreams.protocol }).from(upstreams).where(eq(upstreams.id, body.upstreamId));
  if (!u) throw new AppError("invalid_request", "No such upstream.", { field: "upstreamId" });
  checkServes(u.protocol, body.kind);
  const price = priceToMicro(body.price);
  checkPrice(body.kind, price);
  const siblings = await db
    .select({ kind: models.kind, priority: models.priority, deprecatedAt: models.deprecatedAt, shutdownAt: models.shutdownAt, successor: models.successor, serveSuccessorAfterShutdown: models.serveSuccessorAfterShutdown })
    .from(models)
    .where(eq(models.modelId, body.modelId));
  if (siblings.some((s) => s.kind !== body.kind)) throw new AppError("invalid_request", `"${body.modelId}" already exists with another kind.`, { field: "kind" });
  const { kind: _k, priority: _p, ...siblingLifecycle } = siblings[0] ?? { kind: body.kind, priority: 0, ...LIFECYCLE_NONE };
  const lifecycle = (await lifecycleChange(db, body.modelId, body.kind, body, siblingLifecycle)) ?? siblingLifecycle;
  const [dup] = await db.select({ id: models.id }).from(models).where(and(eq(models.modelId, body.modelId), eq(models.upstreamId, body.upstreamId)));
  if (dup) throw new AppError("conflict", `"${body.modelId}" is already served by "${body.upstreamId}".`, { field: "upstreamId" });
  const id = newId("model");
  try {
    await db.transaction(async (tx) => {
      await tx.insert(models).values({
        id,
        modelId: body.modelId,
        upstreamId: body.upstreamId,
        upstreamModel: body.upstreamModel || body.modelId,
        kind: body.kind,
        family: body.family ?? null,
        ownedBy: body.ownedBy,
        price,
        defaultMaxTokens: body.defaultMaxTokens ?? null,
        contextWindow: body.contextWindow ?? null,
        inputModalities: body.inputModalities ?? null,
        strict: body.strict ?? false,
        priority: body.priority ?? (siblings.length ? Math.max(...siblings.map((s) => s.priority)) + 1 : 0),
        weight: body.weight,
        ...lifecycle,
        enabled: body.enabled,
        source: "console",
      });
      // Routes sharing a public id share its price and lifecycle (docs/design.md): a new route sets them for all.
      if (siblings.length) await tx.update(models).set({ price, ...lifecycle, updatedAt: new Date() }).where(eq(models.modelId, body.modelId));
    });
  } catch (err) {
    if (pgErrorCode(err) === "23505") {
      throw new AppError("conflict", `"${body.modelId}" is already served by "${body.upstreamId}".`, { field: "upstreamId" });
    }
    throw err;
  }
  await changed(db, actor, "model.create", "model", id, { modelId: body.modelId, upstreamId: body.upstreamId, price });
  return { id };
}

export async function updateModel(db: DB, actor: Actor, rowId: string, body: z.infer<typeof updateModelSchema>) {
  const [row] = await db.select().from(models).where(eq(models.id, rowId));
  if (!row) throw new AppError("not_found", "No such model route.");
  const set: Partial<typeof models.$inferInsert> = { updatedAt: new Date() };
  if (body.upstreamModel !== undefined) set.upstreamModel = body.upstreamModel || row.modelId;
  if (body.family !== undefined) set.family = body.family;
  if (body.ownedBy !== undefined) set.ownedBy = body.ownedBy;
  if (body.defaultMaxTokens !== undefined) set.defaultMaxTokens = body.defaultMaxTokens;
  if (body.contextWindow !== undefined) set.contextWindow = body.contextWindow;
  if (body.inputModalities !== undefined) set.inputModalities = body.inputModalities;
  if (body.priority !== undefined) set.priority = body.priority;
  if (body.weight !== undefined) set.weight = body.weight;
  if (body.strict !== undefined) set.strict = body.strict;
  if (body.enabled !== undefined) set.enabled = body.enabled;
  let price: ModelPrice | undefined;
  if (body.price !== undefined) {
    price = priceToMicro(body.price);
    checkPrice(row.kind as (typeof KINDS)[number], price);
  }
  const lifecycle = await lifecycleChange(db, row.modelId, row.kind, body, row);
  await db.transaction(async (tx) => {
    await tx.update(models).set(set).where(eq(models.id, rowId));
    if (price || lifecycle) await tx.update(models).set({ ...(price ? { price } : {}), ...lifecycle, updatedAt: new Date() }).where(eq(models.modelId, row.modelId));
  });
  const { updatedAt: _u, ...plainSet } = set;
  await changed(db, actor, "model.update", "model", rowId, {
    modelId: row.modelId,
    ...auditDiff(row, { ...plainSet, ...(price ? { price } : {}), ...lifecycle }),
  });
  return { id: rowId };
}
