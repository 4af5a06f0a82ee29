/**
 * Admin side of redeem codes: make a batch (amount, count, uses per code, once per person or
 * once per organisation, expiry, note), list
 * batches with their use, export a batch as CSV, withdraw one. Each code is stored as a hash
 * (what redemption looks up) and sealed with ENCRYPTION_KEY (so the batch can be exported again).
 */
import { desc, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { auditLog, redeemBatches, redeemCodes, redemptions } from "../../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import { toCsv, usdCell } from "../console/csv";
import { newId } from "../ids";
import { codeHash, generateCode, normalizeCode } from "./code";

export const MAX_CODES_PER_BATCH = 10_000;
export const MAX_USES_PER_CODE = 1_000_000;
/** Largest amount one code credits: $10,000. */
export const MAX_CODE_MICRO_USD = 10_000 * 1_000_000;

export interface BatchInput {
  amountMicroUsd: number;
  count: number;
  /** 1 = single use; N = up to N accounts, each once. */
  maxRedemptions: number;
  /** Also once per person across their organisations (the default); false = once per organisation. */
  oncePerUser: boolean;
  expiresAt: Date | null;
  note: string | null;
  actor: { userId: string | null; label: string };
}

export type BatchRow = typeof redeemBatches.$inferSelect;

/** Returns a problem with the input in words, or null. */
export function batchProblem(i: Omit<BatchInput, "actor">, now = new Date()): { field: string; message: string } | null {
  if (!Number.isSafeInteger(i.amountMicroUsd) || i.amountMicroUsd <= 0) return { field: "amount", message: "Enter an amount above zero." };
  if (i.amountMicroUsd > MAX_CODE_MICRO_USD) return { field: "amount", message: "At most $10,000 per code." };
  if (!Number.isInteger(i.count) || i.count < 1 || i.count > MAX_CODES_PER_BATCH) return { field: "count", message: `Between 1 and ${MAX_CODES_PER_BATCH.toLocaleString("en-US")} codes per batch.` };
  if (!Number.isInteger(i.maxRedemptions) || i.maxRedemptions < 1 || i.maxRedemptions > MAX_USES_PER_CODE) return { field: "maxRedemptions", message: "Uses per code: a whole number from 1." };
  if (i.expiresAt && (Number.isNaN(i.expiresAt.getTime()) || i.expiresAt <= now)) return { field: "expiresAt", message: "The expiry must be in the future." };
  if (i.note && i.note.length > 500) return { field: "note", message: "At most 500 characters." };
  return null;
}

/** Creates the batch and its codes in one transaction; the codes come back in clear. */
export async function createBatch(db: DB, input: BatchInput): Promise<{ batch: BatchRow; codes: string[] }> {
  const problem = batchProblem(input);
  if (problem) throw new RangeError(problem.message);
  const codes = Array.from({ length: input.count }, generateCode);
  const batchId = newId("redeemBatch");
  const batch = await db.transaction(async (tx) => {
    const [b] = await tx
      .insert(redeemBatches)
      .values({ id: batchId, amountMicroUsd: input.amountMicroUsd, maxRedemptions: input.maxRedemptions, oncePerUser: input.oncePerUser, codeCount: input.count, expiresAt: input.expiresAt, note: input.note, createdByUserId: input.actor.userId })
      .returning();
    for (let i = 0; i < codes.length; i += 500) {
      await tx.insert(redeemCodes).values(codes.slice(i, i + 500).map((c) => ({ id: newId("redeemCode"), batchId, codeHash: codeHash(normalizeCode(c)!), codeSealed: encryptSecret(c) })));
    }
    await tx.insert(auditLog).values({
      actorUserId: input.actor.userId,
      actor: input.actor.label,
      action: "redeem_batch.create",
      targetType: "redeem_batch",
      targetId: batchId,
      details: { micro_usd: input.amountMicroUsd, count: input.count, maxRedemptions: input.maxRedemptions, oncePerUser: input.oncePerUser, expiresAt: input.expiresAt?.toISOString() ?? null, note: input.note },
    });
    return b!;
  });
  return { batch, codes };
}

export async function listBatches(db: DB) {
  const rows = await db
    .select({
      batch: redeemBatches,
      // Written out: drizzle leaves table names off columns in a one-table select, which would make "id" ambiguous here.
      redeemed: sql<number>`coalesce((select sum(c.redemptions) from redeem_codes c where c.batch_id = redeem_batches.id), 0)::int`,
      creditedMicroUsd: sql<string>`coalesce((select sum(r.amount_micro_usd) from redemptions r join redeem_codes c on c.id = r.code_id where c.batch_id = redeem_batches.id), 0)`,
    })
    .from(redeemBatches)
    .orderBy(desc(redeemBatches.createdAt))
    .limit(200);
  return rows.map((r) => ({ ...r.batch, redeemed: r.redeemed, creditedMicroUsd: Number(r.creditedMicroUsd) }));
}

export async function setBatchDisabled(db: DB, batchId: string, disabled: boolean, actor: { userId: string | null; label: string }): Promise<BatchRow | null> {
  return db.transaction(async (tx) => {
    const [b] = await tx.update(redeemBatches).set({ disabled }).where(eq(redeemBatches.id, batchId)).returning();
    if (!b) return null;
    await tx.insert(auditLog).values({ actorUserId: actor.userId, actor: actor.label, action: disabled ? "redeem_batch.disable" : "redeem_batch.enable", targetType: "redeem_batch", targetId: batchId, details: {} });
    return b;
  });
}

/** The batch's codes as CSV (one row per code, with its uses so far); null when there is no such batch. */
export async function batchCsv(db: DB, batchId: string): Promise<string | null> {
  const [b] = await db.select().from(redeemBatches).where(eq(redeemBatches.id, batchId));
  if (!b) return null;
  const codes = await db.select().from(redeemCodes).where(eq(redeemCodes.batchId, batchId)).orderBy(redeemCodes.createdAt, redeemCodes.id);
  return toCsv(
    ["code", "amount_usd", "max_redemptions", "redemptions", "expires_at", "note", "batch_id"],
    codes.map((c) => {
      let code: string;
      try {
        code = decryptSecret(c.codeSealed);
      } catch {
        code = "(sealed with another ENCRYPTION_KEY)";
      }
      return [code, usdCell(b.amountMicroUsd), b.maxRedemptions, c.redemptions, b.expiresAt, b.note, b.id];
    }),
  );
}
