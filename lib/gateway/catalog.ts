/**
 * The model catalog in memory: enabled models joined with their enabled upstreams (credentials
 * decrypted), grouped by public model id in failover order. Reloaded when an admin change is
 * announced through lib/invalidation.ts, and every 30 s as a safety net.
 */
import { and, asc, eq } from "drizzle-orm";
import { getDb } from "../../db/client";
import { modelAliases, models, upstreams, type InputModality, type ModelKind, type ModelPrice, type UpstreamCredentials, type VideoFamily } from "../../db/schema";
import { decryptSecret } from "../crypto";
import { logger } from "../logger";
import { aliasTable, isPattern, matchAlias, type Alias, type AliasTable } from "./aliases";
import { errors, type ApiError } from "./errors";
import type { Result } from "../result";
import { applyLifecycle, isShutDown, type ModelLifecycle } from "./lifecycle";
import { notifyInvalidation, onInvalidation } from "../invalidation";
import type { ModelRoute } from "./model-route";
import type { Principal, RouteContext } from "./types";
import { processSingleton } from "../process-singleton";
import { MODEL_ID_MAX_CHARS } from "../validate/text";

export type { ModelRoute, UpstreamInfo } from "./model-route";

export interface ModelSummary {
  id: string;
  kind: ModelKind;
  family: VideoFamily | null;
  ownedBy: string;
  /** Unix seconds. */
  created: number;
  price: ModelPrice;
  /** What clients need to size requests (null = not configured); from the first entry of the id. */
  maxOutputTokens: number | null;
  contextWindow: number | null;
  inputModalities: InputModality[] | null;
  /** Set for an alias: the model ids it stands for, in order (its other fields are the first target's). */
  aliasOf?: string[];
  /** Set when the model has a deprecation, shutdown or successor (decision 0051); never on an alias. */
  lifecycle?: ModelLifecycle;
}

export interface Catalog {
  routes: Map<string, ModelRoute[]>;
  aliases: AliasTable;
  /** Deprecations and shutdowns by model id. */
  lifecycle: Map<string, ModelLifecycle>;
  summaries: ModelSummary[];
  loadedAt: number;
}

const TTL_MS = 30_000;
/** Entry priorities are 0–1000: an alias's n-th target is tried after every tier of the ones before it. */
const ALIAS_TIER_BAND = 10_000;
const state = processSingleton("gateway.catalog", () => {
  const s: { current?: Catalog; loading?: Promise<Catalog>; generation: number } = { generation: 0 };
  onInvalidation((msg) => {
    if (msg.kind === "catalog") {
      s.generation++;
      s.current = undefined;
      s.loading = undefined;
    }
  });
  return s;
});


async function load(): Promise<Catalog> {
  const db = await getDb();
  const rows = await db
    .select({ m: models, u: upstreams })
    .from(models)
    .innerJoin(upstreams, eq(upstreams.id, models.upstreamId))
    .where(and(eq(models.enabled, true), eq(upstreams.enabled, true)))
    .orderBy(asc(models.modelId), asc(models.priority), asc(models.createdAt));
  const routes = new Map<string, ModelRoute[]>();
  const summaries = new Map<string, ModelSummary>();
  for (const { m, u } of rows) {
    let apiKey: string | null = null;
    let credentials: UpstreamCredentials | undefined;
    if (u.apiKeyEncrypted || u.credentialsEncrypted) {
      try {
        if (u.apiKeyEncrypted) apiKey = decryptSecret(u.apiKeyEncrypted);
        if (u.credentialsEncrypted) credentials = JSON.parse(decryptSecret(u.credentialsEncrypted)) as UpstreamCredentials;
      } catch {
        logger().error({ upstream: u.id }, "cannot decrypt upstream API key (was ENCRYPTION_KEY changed?); upstream skipped");
        continue;
      }
    }
    const route: ModelRoute = {
      rowId: m.id,
      modelId: m.modelId,
      kind: m.kind,
      family: m.family,
      ownedBy: m.ownedBy,
      upstreamModel: m.upstreamModel,
      price: m.price,
      defaultMaxTokens: m.defaultMaxTokens,
      contextWindow: m.contextWindow,
      strict: m.strict,
      priority: m.priority,
      weight: m.weight,
      upstream: { id: u.id, protocol: u.protocol, baseUrl: u.baseUrl, apiKey, timeoutMs: u.timeoutMs, settings: u.settings, credentials },
    };
    const list = routes.get(m.modelId) ?? [];
    list.push(route);
    routes.set(m.modelId, list);
    const created = Math.floor(m.createdAt.getTime() / 1000);
    const prev = summaries.get(m.modelId);
    if (!prev)
      summaries.set(m.modelId, {
        id: m.modelId,
        kind: m.kind,
        family: m.family,
        ownedBy: m.ownedBy,
        created,
        price: m.price,
        maxOutputTokens: m.defaultMaxTokens,
        contextWindow: m.contextWindow,
        inputModalities: m.inputModalities,
      });
    else if (created < prev.created) prev.created = created;
    if (!prev && (m.deprecatedAt || m.shutdownAt || m.successor))
      summaries.get(m.modelId)!.lifecycle = { deprecatedAt: m.deprecatedAt, shutdownAt: m.shutdownAt, successor: m.successor, serveSuccessorAfterShutdown: m.serveSuccessorAfterShutdown };
  }
  const aliasRows = await db.select().from(modelAliases).where(eq(modelAliases.enabled, true));
  const aliasList: Alias[] = aliasRows
    .filter((a) => !routes.has(a.id)) // an exact model id always wins
    .map((a) => ({ id: a.id, targets: a.targets, contextFallback: a.contextFallback }));
  // Named aliases are listed with their first serving target's sizing, prices and capabilities.
  for (const a of aliasList) {
    if (isPattern(a.id)) continue;
    const target = a.targets.map((t) => summaries.get(t)).find((t) => t !== undefined);
    if (target) summaries.set(a.id, { ...target, id: a.id, aliasOf: a.targets, lifecycle: undefined });
  }
  const lifecycle = new Map([...summaries.values()].flatMap((m) => (m.lifecycle ? [[m.id, m.lifecycle] as const] : [])));
  return { routes, aliases: aliasTable(aliasList), lifecycle, summaries: [...summaries.values()], loadedAt: Date.now() };
}

export async function getCatalog(): Promise<Catalog> {
  const s = state();
  if (s.current && Date.now() - s.current.loadedAt < TTL_MS) return s.current;
  if (!s.loading) {
    const generation = s.generation;
    s.loading = load().then(
      (c) => {
        // A change announced while loading makes this copy stale: keep it for this call only.
        if (s.generation === generation) s.current = c;
        s.loading = undefined;
        return c;
      },
      (err) => {
        s.loading = undefined;
        throw err;
      },
    );
  }
  return s.loading;
}

/** Announces an admin change to every instance (call after the change commits). */
export async function invalidateCatalog(): Promise<void> {
  await notifyInvalidation({ kind: "catalog" });
}

/** The allow-list rule: the key's list (empty = all) intersected with the account's (null = all). */
export function isAllowed(principal: Principal, modelId: string): boolean {
  if (principal.accountAllowedModels && !principal.accountAllowedModels.includes(modelId)) return false;
  if (principal.keyAllowedModels?.length && !principal.keyAllowedModels.includes(modelId)) return false;
  return true;
}

const A_KIND: Record<ModelKind, string> = { text: "a text", embedding: "an embedding", image: "an image", video: "a video", speech: "a speech", transcription: "a transcription" };

/** A model id the gateway will look up: a non-empty string of at most MODEL_ID_MAX_CHARS. */
export const isModelId = (modelId: unknown): modelId is string =>
  typeof modelId === "string" && modelId.length > 0 && modelId.length <= MODEL_ID_MAX_CHARS;

/** Why `modelId` is not one (a 400 naming `model`). */
export function modelIdError(modelId: unknown): ApiError {
  if (typeof modelId !== "string" || modelId.length === 0) return errors.invalidRequest("`model` is required and must be a string.", "model");
  return errors.invalidRequest(`\`model\` is ${modelId.length} characters long; model ids are at most ${MODEL_ID_MAX_CHARS}.`, "model");
}

/** The entries serving a model (in tier order), and the alias it was reached through. */
export type ResolvedModel = { routes: ModelRoute[]; alias?: Alias };

/**
 * A public model id → its routes in failover order, for this principal and this route's kinds.
 * Unknown and not-allowed look the same (model_not_found); a model of another kind is
 * model_not_supported, naming both kinds. A deprecated model's notice headers go on `observe`
 * (every reply carries them); a shut-down one is a 410 or its successor (decision 0051).
 */
export async function resolveModel(
  principal: Principal,
  modelId: unknown,
  kinds: ModelKind[],
  observe?: RouteContext["observe"],
): Promise<Result<ResolvedModel, ApiError>> {
  if (!isModelId(modelId)) return { ok: false, error: modelIdError(modelId) };
  const catalog = await getCatalog();
  let routes = catalog.routes.get(modelId);
  let alias: Alias | undefined;
  if (!routes) {
    // An alias: the targets' entries in alias order (allowed when the name asked for, or the alias, is).
    alias = matchAlias(catalog.aliases, modelId) ?? undefined;
    if (alias && (isAllowed(principal, modelId) || isAllowed(principal, alias.id)))
      // Each target is a band of tiers after the one before it (health routing sorts by priority).
      // A shut-down target is skipped (no successor substitution inside an alias).
      routes = alias.targets.filter((t) => !isShutDown(catalog.lifecycle.get(t), new Date())).flatMap((t, i) => (catalog.routes.get(t) ?? []).map((r) => ({ ...r, priority: i * ALIAS_TIER_BAND + (r.priority ?? 0) })));
    else if (alias) return { ok: false, error: errors.modelNotFound(modelId) };
  } else if (!isAllowed(principal, modelId)) return { ok: false, error: errors.modelNotFound(modelId) };
  if (!routes?.length) return { ok: false, error: errors.modelNotFound(modelId) };
  const kind = routes[0]!.kind;
  if (!kinds.includes(kind)) {
    return {
      ok: false,
      error: errors.modelNotSupported(
        `The model "${modelId}" is ${A_KIND[kind]} model; this route serves ${kinds.join(" or ")} models.`,
      ),
    };
  }
  if (alias) routes = routes.filter((r) => r.kind === kind);
  else if (catalog.lifecycle.has(modelId)) {
    // Only models with lifecycle dates pay for the check: the request path allocates nothing here otherwise.
    const life = applyLifecycle(modelId, routes, { lifecycle: (id) => catalog.lifecycle.get(id), routes: (id) => catalog.routes.get(id) }, new Date());
    if (observe && Object.keys(life.headers).length) observe.headers = Object.assign(observe.headers ?? {}, life.headers);
    if (!life.ok) return { ok: false, error: life.error };
    routes = life.value;
  }
  return { ok: true, value: { routes, ...(alias ? { alias } : {}) } };
}

/** Models this principal may use, sorted by id. */
export async function listModels(principal: Principal): Promise<ModelSummary[]> {
  const catalog = await getCatalog();
  return catalog.summaries.filter((m) => isAllowed(principal, m.id)).sort((a, b) => a.id.localeCompare(b.id));
}
