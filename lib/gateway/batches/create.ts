/**
 * Creating a batch, whatever its dialect: every line priced at its worst case at the batch
 * price, ONE hold for their sum (a 402 in the dialect's shape when the balance cannot cover it),
 * then the batch and its lines written; the runner (runner.ts) takes it from there.
 */
import type { DB } from "../../../db/client";
import { batches, batchLines } from "../../../db/schema";
import { returnHold } from "../../billing/holds";
import { encryptSecret } from "../../crypto";
import { newId } from "../../ids";
import { checkWebhookUrl } from "../../tasks/ssrf";
import { webhookPolicy } from "../../tasks/webhook-policy";
import { refusalError, routeBilling } from "../billing";
import { errors, type ApiError } from "../errors";
import type { RouteContext } from "../types";
import { lineShare, sealJson, type PricedLine } from "./lines";
import { newBatchId, type BatchRow } from "./store";
import type { Result } from "../../result";
import { wakeWorkers } from "../../tasks/wake";

/** OpenAI's limit on one batch. */
export const MAX_LINES = 50_000;
/** The completion window every vendor gives a batch. */
const WINDOW_MS = 24 * 3600_000;

export interface NewLine {
  customId: string;
  url: string;
  body: Record<string, unknown>;
  bodyBytes: number;
}

export interface NewBatch {
  dialect: BatchRow["dialect"];
  endpoint: string;
  inputFileId: string | null;
  metadata: Record<string, string> | null;
  webhook: unknown;
  webhookSecret: unknown;
  lines: NewLine[];
}

/** The `webhook` / `webhook_secret` extension (the same rules as a video task's: docs/webhooks.md). */
async function webhookOf(b: NewBatch): Promise<Result<{ url: string | null; secret: string | null }, ApiError>> {
  if (b.webhook === undefined || b.webhook === null) {
    if (b.webhookSecret !== undefined && b.webhookSecret !== null) return { ok: false, error: errors.invalidRequest("`webhook_secret` needs a `webhook` URL.", "webhook_secret") };
    return { ok: true, value: { url: null, secret: null } };
  }
  const verdict = await checkWebhookUrl(b.webhook, webhookPolicy().policy);
  if (!verdict.ok) return { ok: false, error: errors.invalidRequest(`\`webhook\` is not allowed: the URL ${verdict.error}.`, "webhook") };
  const s = b.webhookSecret;
  if (s !== undefined && s !== null && (typeof s !== "string" || s.length < 8 || s.length > 128)) return { ok: false, error: errors.invalidRequest("`webhook_secret` must be a string of 8 to 128 characters.", "webhook_secret") };
  return { ok: true, value: { url: verdict.value.url.toString(), secret: typeof s === "string" ? s : null } };
}

export async function createBatch(ctx: RouteContext, db: DB, b: NewBatch): Promise<Result<BatchRow, ApiError>> {
  const hook = await webhookOf(b);
  if (!hook.ok) return hook;
  const p = ctx.principal;
  const priced: PricedLine[] = [];
  for (const l of b.lines) priced.push(await lineShare(p, l.url, l.body, l.bodyBytes));
  const total = priced.reduce((a, x) => a + x.share, 0);
  const route = { openai: "/v1/batches", anthropic: "/v1/messages/batches", gemini: "/v1beta/batches" }[b.dialect];
  // The hold outlives the window: the sweeper must never return money a line is about to settle.
  const r = await routeBilling(db, ctx, route, "text").reserve(total, { ttlMs: WINDOW_MS + 3600_000 });
  if (!r.ok) return { ok: false, error: refusalError(r) };
  if (r.hold.kind !== "row") throw new Error("a batch's hold is a hold row");
  const holdId = r.hold.holdId;
  const id = newBatchId();
  const now = new Date();
  try {
    const row = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(batches)
        .values({
          id,
          accountId: p.accountId,
          keyId: p.keyId,
          userId: p.userId,
          dialect: b.dialect,
          endpoint: b.endpoint,
          inputFileId: b.inputFileId,
          status: "in_progress",
          principal: p as unknown as Record<string, unknown>,
          holdId,
          holdMicroUsd: r.hold.amountMicroUsd,
          totalLines: b.lines.length,
          metadata: b.metadata,
          webhookUrl: hook.value.url,
          webhookSecretEncrypted: hook.value.secret ? encryptSecret(hook.value.secret) : null,
          createdAt: now,
          expiresAt: new Date(now.getTime() + WINDOW_MS),
        })
        .returning();
      for (let i = 0; i < b.lines.length; i += 1000) {
        await tx.insert(batchLines).values(
          b.lines.slice(i, i + 1000).map((l, j) => ({
            batchId: id,
            idx: i + j,
            customId: l.customId,
            url: l.url,
            body: sealJson(l.body),
            bodyBytes: l.bodyBytes,
            shareMicroUsd: priced[i + j]!.share,
            nativeRoute: priced[i + j]!.nativeRoute,
            requestId: newId("request"),
            dueAt: now,
          })),
        );
      }
      return row!;
    });
    wakeWorkers(); // the batch job sleeps longer while idle: its lines start now
    return { ok: true, value: row };
  } catch (err) {
    await db.transaction((tx) => returnHold(tx, holdId, p.accountId, p.keyId));
    throw err;
  }
}

/** `metadata`: up to 16 string pairs (keys ≤ 64, values ≤ 512 characters), as OpenAI allows. */
export function metadataOf(v: unknown): Result<Record<string, string> | null, ApiError> {
  if (v === undefined || v === null) return { ok: true, value: null };
  const bad = { ok: false as const, error: errors.invalidRequest("`metadata` must be an object of at most 16 string values (keys up to 64 characters, values up to 512).", "metadata") };
  if (typeof v !== "object" || Array.isArray(v)) return bad;
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > 16 || entries.some(([k, x]) => k.length > 64 || typeof x !== "string" || x.length > 512)) return bad;
  return { ok: true, value: Object.fromEntries(entries) as Record<string, string> };
}
