/**
 * API keys as the console sees them: every function is scoped to the caller's account, lists
 * never carry a secret (prefix and last four only), and the full key leaves the server once,
 * in the answer to create or roll.
 */
import { and, desc, eq, gte, sql } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { apiKeys, requestLogs, users } from "../../db/schema";
import { announceNewKey, createKey, revokeKey } from "../keys/manage";
import { MAX_ROLL_GRACE_S, rollKey } from "../keys/roll";
import { notifyInvalidation } from "../invalidation";
import { parseUsd } from "../billing/money";
import { auditDiff, recordAudit } from "./audit";
import { AppError } from "./errors";
import { availableModels } from "./models";
import type { KeyView } from "../views";
export type { KeyView };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** `memberId`: only the keys that member created (members see no one else's). */
export async function listKeys(db: DB, accountId: string, now = new Date(), memberId?: string): Promise<KeyView[]> {
  const joined = await db
    .select({ k: apiKeys, creator: users.email })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdByUserId))
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.playground, false), memberId ? eq(apiKeys.createdByUserId, memberId) : undefined))
    .orderBy(desc(apiKeys.createdAt));
  const rows = joined.map((r) => ({ ...r.k, createdByEmail: r.creator }));
  const since = new Date(now.getTime() - 30 * 86_400_000);
  const stats = await db
    .select({ keyId: requestLogs.keyId, n: sql<number>`count(*)::int`, cost: sql<string>`coalesce(sum(${requestLogs.costMicroUsd}), 0)` })
    .from(requestLogs)
    .where(and(eq(requestLogs.accountId, accountId), gte(requestLogs.createdAt, since)))
    .groupBy(requestLogs.keyId);
  const byKey = new Map(stats.map((s) => [s.keyId, s]));
  return rows.map((k) => ({
    id: k.id,
    name: k.name,
    createdByUserId: k.createdByUserId,
    createdByEmail: k.createdByEmail,
    prefix: k.prefix,
    last4: k.last4,
    allowedModels: k.allowedModels?.length ? k.allowedModels : null,
    limitMicroUsd: k.limitMicroUsd,
    spentMicroUsd: k.spentMicroUsd,
    rpm: k.rpm,
    tpm: k.tpm,
    maxConcurrent: k.maxConcurrent,
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    lastUsedAt: iso(k.lastUsedAt),
    previousExpiresAt: k.previousExpiresAt && k.previousExpiresAt > now ? iso(k.previousExpiresAt) : null,
    createdAt: k.createdAt.toISOString(),
    status: k.revokedAt ? "revoked" : k.expiresAt && k.expiresAt <= now ? "expired" : "active",
    requests30d: byKey.get(k.id)?.n ?? 0,
    spend30dMicroUsd: Number(byKey.get(k.id)?.cost ?? 0),
    contentLogMode: k.contentLogMode,
  }));
}

const usdString = z
  .string()
  .trim()
  .refine((s) => parseUsd(s) !== null, "Enter a dollar amount such as 25 or 0.50.");

/** The create form's body. Empty strings mean "not set". */
export const createKeySchema = z.object({
  name: z.string().trim().min(1, "Give the key a name.").max(100, "Use at most 100 characters."),
  allowedModels: z.array(z.string().min(1).max(200)).max(500).default([]),
  limitUsd: z.union([z.literal(""), usdString]).optional(),
  rpm: z.union([z.literal(""), z.coerce.number().int("Whole requests per minute.").min(1, "At least 1.").max(1_000_000)]).optional(),
  tpm: z.union([z.literal(""), z.coerce.number().int("Whole tokens per minute.").min(1, "At least 1.").max(1_000_000_000)]).optional(),
  maxConcurrent: z.union([z.literal(""), z.coerce.number().int("A whole number of requests.").min(1, "At least 1.").max(100_000)]).optional(),
  expiresAt: z
    .union([z.literal(""), z.string().datetime({ offset: true, message: "Pick a date and time." })])
    .optional()
    .refine((v) => !v || new Date(v).getTime() > Date.now(), "Pick a time in the future."),
});

export type CreateKeyBody = z.infer<typeof createKeySchema>;

async function checkModels(db: DB, accountId: string, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const allowed = new Set((await availableModels(db, accountId)).map((m) => m.id));
  const bad = ids.find((m) => !allowed.has(m));
  if (bad) throw new AppError("invalid_request", `"${bad}" is not a model this account can use.`, { field: "allowedModels" });
  return [...new Set(ids)];
}

export async function createConsoleKey(db: DB, user: { id: string; accountId: string; email: string }, body: CreateKeyBody) {
  const allowedModels = await checkModels(db, user.accountId, body.allowedModels);
  // The key and its audit row commit together: a key the user never sees must not exist.
  const created = await db.transaction(async (tx) => {
    const key = await createKey(tx, {
      accountId: user.accountId,
      name: body.name,
      allowedModels: allowedModels.length ? allowedModels : null,
      limitMicroUsd: body.limitUsd ? parseUsd(body.limitUsd) : null,
      rpm: body.rpm === "" || body.rpm === undefined ? null : body.rpm,
      tpm: body.tpm === "" || body.tpm === undefined ? null : body.tpm,
      maxConcurrent: body.maxConcurrent === "" || body.maxConcurrent === undefined ? null : body.maxConcurrent,
      expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
      createdByUserId: user.id,
    });
    await recordAudit(tx, { actorUserId: user.id, actor: user.email, action: "key.create", targetType: "api_key", targetId: key.id, accountId: user.accountId, details: { name: body.name, before: null, after: { name: body.name } } });
    return key;
  });
  await announceNewKey(created);
  return created;
}

export const rollKeySchema = z.object({
  graceSeconds: z.coerce.number().int().min(0).max(MAX_ROLL_GRACE_S, "At most 30 days."),
});

/** The caller's key, or any key of the organisation when their role manages every key; else 404. */
export async function checkKeyAccess(db: DB, user: { id: string; accountId: string }, keyId: string, all: boolean): Promise<void> {
  if (all) return;
  const [row] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, user.accountId), eq(apiKeys.createdByUserId, user.id), eq(apiKeys.playground, false)));
  if (!row) throw new AppError("not_found", "No such key.");
}

export async function rollConsoleKey(db: DB, user: { id: string; accountId: string; email: string }, keyId: string, graceSeconds: number) {
  const r = await rollKey(db, { keyId, accountId: user.accountId, graceSeconds });
  if (!r.ok) {
    if (r.error === "not_found") throw new AppError("not_found", "No such key.");
    throw new AppError("conflict", `This key is ${r.error} and cannot be rolled.`);
  }
  await recordAudit(db, { actorUserId: user.id, actor: user.email, action: "key.roll", targetType: "api_key", targetId: keyId, accountId: user.accountId, details: { graceSeconds } });
  return r.value;
}

export async function revokeConsoleKey(db: DB, user: { id: string; accountId: string; email: string }, keyId: string) {
  const [row] = await db.select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt }).from(apiKeys).where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, user.accountId), eq(apiKeys.playground, false)));
  if (!row) throw new AppError("not_found", "No such key.");
  if (row.revokedAt) return { id: keyId, revokedAt: row.revokedAt.toISOString() };
  // Looked up by id only (never a key string from the browser) and scoped to the account.
  const id = await revokeKey(db, keyId, user.accountId);
  if (!id) throw new AppError("not_found", "No such key.");
  await recordAudit(db, { actorUserId: user.id, actor: user.email, action: "key.revoke", targetType: "api_key", targetId: keyId, accountId: user.accountId, details: { before: { revokedAt: null }, after: { revokedAt: new Date().toISOString() } } });
  return { id, revokedAt: new Date().toISOString() };
}

export const updateKeySchema = createKeySchema.partial();

export async function updateConsoleKey(db: DB, user: { id: string; accountId: string; email: string }, keyId: string, body: z.infer<typeof updateKeySchema>) {
  const set: Partial<typeof apiKeys.$inferInsert> = {};
  if (body.name !== undefined) set.name = body.name;
  if (body.allowedModels !== undefined) {
    const m = await checkModels(db, user.accountId, body.allowedModels);
    set.allowedModels = m.length ? m : null;
  }
  if (body.limitUsd !== undefined) set.limitMicroUsd = body.limitUsd ? parseUsd(body.limitUsd) : null;
  if (body.rpm !== undefined) set.rpm = body.rpm === "" ? null : body.rpm;
  if (body.tpm !== undefined) set.tpm = body.tpm === "" ? null : body.tpm;
  if (body.maxConcurrent !== undefined) set.maxConcurrent = body.maxConcurrent === "" ? null : body.maxConcurrent;
  if (body.expiresAt !== undefined) set.expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
  if (!Object.keys(set).length) throw new AppError("invalid_request", "Nothing to change.");
  const [old] = await db
    .select({ name: apiKeys.name, allowedModels: apiKeys.allowedModels, limitMicroUsd: apiKeys.limitMicroUsd, rpm: apiKeys.rpm, expiresAt: apiKeys.expiresAt })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, user.accountId), eq(apiKeys.playground, false)));
  if (!old) throw new AppError("not_found", "No such key.");
  const rows = await db
    .update(apiKeys)
    .set(set)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, user.accountId)))
    .returning({ hash: apiKeys.hash, previousHash: apiKeys.previousHash });
  if (!rows.length) throw new AppError("not_found", "No such key.");
  await notifyInvalidation({ kind: "keys", hashes: [rows[0]!.hash, rows[0]!.previousHash].filter(Boolean) as string[] });
  await recordAudit(db, { actorUserId: user.id, actor: user.email, action: "key.update", targetType: "api_key", targetId: keyId, accountId: user.accountId, details: { name: old.name, ...auditDiff(old, set) } });
  return { id: keyId };
}
