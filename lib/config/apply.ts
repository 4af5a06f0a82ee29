/**
 * Upserts the config file (or the demo catalog) into the database at start. The file wins for
 * the entries it names; console-made entries are left alone; an entry that left the file is
 * disabled, never deleted, so history keeps its prices.
 */
import { createHash } from "node:crypto";
import { and, eq, inArray, not, sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { gatewaySettings, modelAliases, models, upstreams, type ModelPrice, type UpstreamCredentials, type UpstreamSettings } from "../../db/schema";
import { usdToMicro } from "../billing/money";
import { encryptSecret } from "../crypto";
import { env } from "../env";
import { newId } from "../ids";
import { lifecycleDates } from "./lifecycle";
import { TEXT_CLASS_PRICES, type GatewayConfig } from "./schema";

/** Prices as USD numbers (config file, admin console): the same keys as ModelPrice, in dollars. */
export type UsdPrice = ModelPrice;

export function priceToMicro(p: UsdPrice): ModelPrice {
  const out: ModelPrice = {};
  if (p.inputPerMTok !== undefined) out.inputPerMTok = usdToMicro(p.inputPerMTok);
  if (p.outputPerMTok !== undefined) out.outputPerMTok = usdToMicro(p.outputPerMTok);
  for (const f of TEXT_CLASS_PRICES) if (p[f] !== undefined) out[f] = usdToMicro(p[f]);
  if (p.perImage) out.perImage = Object.fromEntries(Object.entries(p.perImage).map(([k, v]) => [k, usdToMicro(v)]));
  if (p.perVideo !== undefined) out.perVideo = usdToMicro(p.perVideo);
  if (typeof p.perSecond === "number") out.perSecond = usdToMicro(p.perSecond);
  else if (p.perSecond) out.perSecond = Object.fromEntries(Object.entries(p.perSecond).map(([k, v]) => [k, usdToMicro(v)]));
  if (p.batchDiscount !== undefined) out.batchDiscount = p.batchDiscount; // a share, not dollars
  for (const f of ["audioInputPerMTok", "audioOutputPerMTok", "perMCharacters", "imageInputPerMTok", "imageOutputPerMTok"] as const) if (p[f] !== undefined) out[f] = usdToMicro(p[f]);
  return out;
}

/** The non-secret settings of a config upstream, as the `settings` column keeps them. */
function upstreamSettings(u: GatewayConfig["upstreams"][number]): UpstreamSettings {
  const out: UpstreamSettings = {};
  for (const k of ["vendor", "batches", "apiVersion", "textApi", "tenantId", "clientId", "tokenUrl", "region", "project", "claudeApi", "guardrailId", "guardrailVersion", "guardrailTrace"] as const) if (u[k] !== undefined) Object.assign(out, { [k]: u[k] });
  return out;
}

/** A config upstream's secrets beyond `apiKey`, encrypted as one JSON document, or null. */
function upstreamCredentials(u: GatewayConfig["upstreams"][number]): string | null {
  const out: UpstreamCredentials = {};
  for (const k of ["clientSecret", "accessKeyId", "secretAccessKey", "sessionToken", "serviceAccount"] as const) if (u[k] !== undefined) out[k] = u[k];
  return Object.keys(out).length ? encryptSecret(JSON.stringify(out)) : null;
}

export async function applyConfig(db: DB, cfg: GatewayConfig, source: "config" | "demo"): Promise<void> {
  await db.transaction(async (tx) => {
    const now = new Date();
    for (const u of cfg.upstreams) {
      const values = {
        protocol: u.protocol,
        baseUrl: u.baseUrl ?? "",
        apiKeyEncrypted: u.apiKey ? encryptSecret(u.apiKey) : null,
        timeoutMs: u.timeoutMs ?? null,
        settings: upstreamSettings(u),
        credentialsEncrypted: upstreamCredentials(u),
        enabled: u.enabled ?? true,
        source,
        updatedAt: now,
      };
      await tx.insert(upstreams).values({ id: u.id, ...values }).onConflictDoUpdate({ target: upstreams.id, set: values });
    }
    const seenModelRows: string[] = [];
    const positionById = new Map<string, number>();
    for (const m of cfg.models) {
      const position = positionById.get(m.id) ?? 0;
      positionById.set(m.id, position + 1);
      // Without priorities, each entry is its own tier: failover in file order.
      const priority = m.priority ?? position;
      const values = {
        upstreamModel: m.upstreamModel ?? m.id,
        kind: m.kind,
        family: m.family ?? null,
        ownedBy: m.ownedBy ?? (source === "demo" ? "demo" : m.upstream),
        price: priceToMicro(m.price),
        defaultMaxTokens: m.maxOutputTokens ?? m.defaultMaxTokens ?? null,
        contextWindow: m.contextWindow ?? null,
        inputModalities: m.inputModalities ?? null,
        strict: m.strict ?? false,
        priority,
        weight: m.weight ?? 1,
        ...lifecycleDates(m),
        successor: m.successor ?? null,
        serveSuccessorAfterShutdown: m.serveSuccessorAfterShutdown ?? false,
        enabled: m.enabled ?? true,
        source,
        updatedAt: now,
      };
      const [row] = await tx
        .insert(models)
        .values({ id: newId("model"), modelId: m.id, upstreamId: m.upstream, ...values })
        .onConflictDoUpdate({ target: [models.modelId, models.upstreamId], set: values })
        .returning({ id: models.id });
      seenModelRows.push(row!.id);
    }
    // Entries this source owned before but no longer names: disabled, kept for history.
    const otherSource = source === "demo" ? "config" : "demo";
    const stale = seenModelRows.length ? not(inArray(models.id, seenModelRows)) : sql`true`;
    await tx.update(models).set({ enabled: false, updatedAt: now }).where(and(eq(models.source, source), stale));
    await tx.update(models).set({ enabled: false, updatedAt: now }).where(eq(models.source, otherSource));
    // Aliases: the file wins for the names it gives; one that left the file is disabled.
    const namedAliases: string[] = [];
    for (const a of cfg.aliases ?? []) {
      const values = { targets: a.targets, contextFallback: a.contextFallback ?? false, enabled: a.enabled ?? true, source, updatedAt: now };
      await tx.insert(modelAliases).values({ id: a.id, ...values }).onConflictDoUpdate({ target: modelAliases.id, set: values });
      namedAliases.push(a.id);
    }
    await tx
      .update(modelAliases)
      .set({ enabled: false, updatedAt: now })
      .where(and(inArray(modelAliases.source, [source, otherSource]), namedAliases.length ? not(inArray(modelAliases.id, namedAliases)) : sql`true`));
    const namedUpstreams = cfg.upstreams.map((u) => u.id);
    await tx
      .update(upstreams)
      .set({ enabled: false, updatedAt: now })
      .where(and(inArray(upstreams.source, [source, otherSource]), namedUpstreams.length ? not(inArray(upstreams.id, namedUpstreams)) : sql`true`));
  });
}

/** gateway_settings row naming the config last applied (its fingerprint). */
const APPLIED = "applied_config";

/**
 * applyConfig unless this very config was applied last (serverless cold starts, decision 0044):
 * a deployment's first instance — or `npm run db:migrate`, its build step — applies it, the
 * others read one row. The fingerprint covers the resolved file (so a changed `${ENV}` secret
 * counts) and the encryption key the upstream keys are sealed with. True when it applied.
 */
export async function applyConfigIfChanged(db: DB, cfg: GatewayConfig, source: "config" | "demo"): Promise<boolean> {
  const fingerprint = createHash("sha256").update(JSON.stringify([source, cfg, env().ENCRYPTION_KEY ?? ""])).digest("hex");
  const [row] = await db.select({ value: gatewaySettings.value }).from(gatewaySettings).where(eq(gatewaySettings.name, APPLIED));
  if (row?.value.fingerprint === fingerprint) return false;
  await applyConfig(db, cfg, source);
  const value = { fingerprint, appliedAt: new Date().toISOString() };
  await db.insert(gatewaySettings).values({ name: APPLIED, value }).onConflictDoUpdate({ target: gatewaySettings.name, set: { value, updatedAt: new Date() } });
  return true;
}
