/**
 * SCIM bearer tokens: one organisation each, shown once, stored as sha256 (like API keys).
 * Made from the console (Organisation → Identity) or `npm run admin -- scim token create`.
 */
import { createHash } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { accounts, scimTokens } from "../../db/schema";
import { recordAudit } from "../audit/record";
import { AppError } from "../app-error";
import { newId, randomBase62 } from "../ids";

const TOKEN = /^scim_[A-Za-z0-9]{43}$/;

export function hashScimToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export interface ScimTokenActor {
  userId: string | null;
  /** The actor's email, or "cli". */
  actor: string;
}

export async function createScimToken(db: DbOrTx, accountId: string, by: ScimTokenActor): Promise<{ id: string; token: string; prefix: string }> {
  const [org] = await db.select({ personal: accounts.personal, disabled: accounts.disabled }).from(accounts).where(eq(accounts.id, accountId));
  if (!org || org.disabled) throw new AppError("not_found", "No such organisation.");
  // A personal organisation has one member by design: there is nobody to provision.
  if (org.personal) throw new AppError("conflict", "SCIM provisions a team organisation, not a personal one.");
  const token = `scim_${randomBase62(43)}`;
  const id = newId("scimToken");
  const prefix = token.slice(0, 9);
  await db.insert(scimTokens).values({ id, accountId, hash: hashScimToken(token), prefix, createdByUserId: by.userId });
  await recordAudit(db, { actorUserId: by.userId, actor: by.actor, action: "scim.token_create", targetType: "scim_token", targetId: id, details: { accountId, prefix } });
  return { id, token, prefix };
}

export async function revokeScimToken(db: DbOrTx, accountId: string, id: string, by: ScimTokenActor): Promise<boolean> {
  const rows = await db
    .update(scimTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(scimTokens.id, id), eq(scimTokens.accountId, accountId), isNull(scimTokens.revokedAt)))
    .returning({ id: scimTokens.id });
  if (rows.length) await recordAudit(db, { actorUserId: by.userId, actor: by.actor, action: "scim.token_revoke", targetType: "scim_token", targetId: id, details: { accountId } });
  return rows.length === 1;
}

export async function listScimTokens(db: DbOrTx, accountId: string) {
  return db
    .select({ id: scimTokens.id, prefix: scimTokens.prefix, createdAt: scimTokens.createdAt, lastUsedAt: scimTokens.lastUsedAt, revokedAt: scimTokens.revokedAt })
    .from(scimTokens)
    .where(eq(scimTokens.accountId, accountId))
    .orderBy(scimTokens.createdAt);
}

/** The organisation a presented token speaks for, or null (malformed, unknown, revoked, organisation gone). */
export async function scimTokenOrg(db: DbOrTx, presented: string): Promise<string | null> {
  if (!TOKEN.test(presented)) return null;
  const [row] = await db
    .select({ id: scimTokens.id, accountId: scimTokens.accountId })
    .from(scimTokens)
    .innerJoin(accounts, and(eq(accounts.id, scimTokens.accountId), eq(accounts.disabled, false)))
    .where(and(eq(scimTokens.hash, hashScimToken(presented)), isNull(scimTokens.revokedAt)));
  if (!row) return null;
  await db.update(scimTokens).set({ lastUsedAt: new Date() }).where(eq(scimTokens.id, row.id));
  return row.accountId;
}
