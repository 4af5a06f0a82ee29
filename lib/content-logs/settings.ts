/**
 * The organisation's content-logging settings (Organisation → Content logs; owners and admins)
 * and a key's narrowing. Every change is audited with before/after; keys carry the setting in
 * their cached principal, so a change reaches every instance at once (cache invalidation) and
 * applies to requests from then on — never to requests already made.
 */
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { accounts, apiKeys } from "../../db/schema";
import { auditDiff, recordAudit } from "../audit/record";
import { AppError } from "../app-error";
import { notifyInvalidation } from "../invalidation";
import { CONTENT_LOG_BUILTINS, CONTENT_LOG_MODES } from "../values";
import type { ContentLogSettingsView } from "../views";
import { MAX_PATTERNS, patternProblem } from "./redact";
import { deleteAllContentLogs } from "./store";

export const MAX_RETENTION_DAYS = 365;

export const contentLogSettingsSchema = z.object({
  mode: z.enum(CONTENT_LOG_MODES),
  retentionDays: z.number().int().min(1).max(MAX_RETENTION_DAYS),
  redact: z.array(z.string()).max(MAX_PATTERNS),
  builtins: z.array(z.enum(CONTENT_LOG_BUILTINS)),
});

export const keyContentLogSchema = z.object({ mode: z.enum(CONTENT_LOG_MODES).nullable() });

interface Actor {
  id: string;
  email: string;
  accountId: string;
}

const FUTURE_ONLY = "Applies to requests made from now on; earlier requests have no content log.";

export async function contentLogSettings(db: DB, accountId: string): Promise<ContentLogSettingsView> {
  const [a] = await db
    .select({ mode: accounts.contentLogMode, retentionDays: accounts.contentLogRetentionDays, redact: accounts.contentLogRedact, builtins: accounts.contentLogBuiltins })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!a) throw new AppError("not_found", "No such organisation.");
  return { ...a, note: FUTURE_ONLY };
}

export async function setContentLogSettings(db: DB, actor: Actor, body: z.infer<typeof contentLogSettingsSchema>): Promise<ContentLogSettingsView> {
  const redact = [...new Set(body.redact.map((p) => p.trim()).filter(Boolean))];
  for (const [i, p] of redact.entries()) {
    const why = patternProblem(p);
    if (why) throw new AppError("invalid_request", `redact[${i}]: the pattern ${why}.`, { field: "redact" });
  }
  const set = { contentLogMode: body.mode, contentLogRetentionDays: body.retentionDays, contentLogRedact: redact, contentLogBuiltins: [...new Set(body.builtins)] };
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ contentLogMode: accounts.contentLogMode, contentLogRetentionDays: accounts.contentLogRetentionDays, contentLogRedact: accounts.contentLogRedact, contentLogBuiltins: accounts.contentLogBuiltins })
      .from(accounts)
      .where(eq(accounts.id, actor.accountId))
      .for("update");
    if (!before) throw new AppError("not_found", "No such organisation.");
    await tx.update(accounts).set(set).where(eq(accounts.id, actor.accountId));
    const diff = auditDiff(before, set);
    if (Object.keys(diff.after).length)
      await recordAudit(tx, { accountId: actor.accountId, actorUserId: actor.id, actor: actor.email, action: "org.content_logs", targetType: "account", targetId: actor.accountId, details: diff });
  });
  await notifyInvalidation({ kind: "accounts", ids: [actor.accountId] });
  return contentLogSettings(db, actor.accountId);
}

/** A key narrows its organisation's logging (null = the organisation's); it can never widen it. */
export async function setKeyContentLog(db: DB, actor: Actor, keyId: string, mode: z.infer<typeof keyContentLogSchema>["mode"]) {
  const key = await db.transaction(async (tx) => {
    const [k] = await tx
      .select({ id: apiKeys.id, hash: apiKeys.hash, previousHash: apiKeys.previousHash, contentLogMode: apiKeys.contentLogMode })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, actor.accountId), eq(apiKeys.playground, false)))
      .for("update");
    if (!k) throw new AppError("not_found", "No such key.");
    await tx.update(apiKeys).set({ contentLogMode: mode }).where(eq(apiKeys.id, keyId));
    if (k.contentLogMode !== mode)
      await recordAudit(tx, { accountId: actor.accountId, actorUserId: actor.id, actor: actor.email, action: "key.content_logs", targetType: "api_key", targetId: keyId, details: { before: { contentLogMode: k.contentLogMode }, after: { contentLogMode: mode } } });
    return k;
  });
  await notifyInvalidation({ kind: "keys", hashes: [key.hash, ...(key.previousHash ? [key.previousHash] : [])] });
  return { id: keyId, contentLogMode: mode, note: FUTURE_ONLY };
}

/** Deletes every content log of the organisation now (audited). */
export async function purgeContentLogs(db: DB, actor: Actor): Promise<{ deleted: number }> {
  const deleted = await deleteAllContentLogs(db, actor.accountId);
  await recordAudit(db, { accountId: actor.accountId, actorUserId: actor.id, actor: actor.email, action: "org.content_logs_purge", targetType: "account", targetId: actor.accountId, details: { deleted } });
  return { deleted };
}
