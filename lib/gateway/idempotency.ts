/**
 * `Idempotency-Key` on POST /v1/images/generations and /v1/videos (docs/design.md, "Headers"): for 24 h per account
 * and route, a repeat of a successful request returns the first answer and charges nothing
 * more. The key is claimed with one INSERT before any money is held, so concurrent repeats
 * cannot both reach the upstream; a repeat while the first is running gets 409 (the SDKs retry
 * 409 and then receive the stored answer). A failed request frees its key: nothing was
 * charged, so trying again is safe.
 */
import { createHash } from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import type { DB } from "../../db/client";
import { idempotencyRecords } from "../../db/schema";
import { errors, type ApiError } from "./errors";
import { header, json, type GatewayResponse } from "./http";
import type { Claim } from "./pipeline";
import type { RouteContext } from "./types";

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const MAX_KEY_LENGTH = 255;

export interface IdempotencyClaim {
  accountId: string;
  route: string;
  key: string;
}

export type IdempotencyBegin =
  | { kind: "none" }
  | { kind: "claimed"; claim: IdempotencyClaim }
  | { kind: "replay"; response: GatewayResponse }
  | { kind: "error"; error: ApiError };

export async function beginIdempotent(
  db: DB,
  input: { accountId: string; route: string; key: string | undefined; body: Buffer },
): Promise<IdempotencyBegin> {
  if (input.key === undefined) return { kind: "none" };
  const key = input.key;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH)
    return { kind: "error", error: errors.invalidRequest(`The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} characters.`, "Idempotency-Key") };
  const requestHash = createHash("sha256").update(input.body).digest("hex");
  const where = and(
    eq(idempotencyRecords.accountId, input.accountId),
    eq(idempotencyRecords.route, input.route),
    eq(idempotencyRecords.key, key),
  );
  // An answer older than the window is forgotten, so the key can be used afresh.
  await db.delete(idempotencyRecords).where(and(where, lt(idempotencyRecords.createdAt, new Date(Date.now() - IDEMPOTENCY_TTL_MS))));
  const inserted = await db
    .insert(idempotencyRecords)
    .values({ accountId: input.accountId, route: input.route, key, requestHash })
    .onConflictDoNothing()
    .returning({ key: idempotencyRecords.key });
  const claim = { accountId: input.accountId, route: input.route, key };
  if (inserted.length) return { kind: "claimed", claim };

  const [row] = await db.select().from(idempotencyRecords).where(where);
  // Freed between our insert and this read: the caller may simply try again.
  if (!row) return { kind: "error", error: inProgress() };
  if (row.requestHash !== requestHash)
    return {
      kind: "error",
      error: errors.invalidRequest("This Idempotency-Key was already used with a different request body.", "Idempotency-Key"),
    };
  if (row.status === null || row.responseBody === null) return { kind: "error", error: inProgress() };
  return {
    kind: "replay",
    response: { ...json(row.status, null, { "idempotent-replayed": "true" }), body: row.responseBody },
  };
}

/** Stores the answer of a successful request under its key. */
export async function completeIdempotent(db: DB, claim: IdempotencyClaim, status: number, body: string): Promise<void> {
  await db.update(idempotencyRecords).set({ status, responseBody: body }).where(whereClaim(claim));
}

/** Frees the key of a request that failed (nothing was charged). */
export async function abandonIdempotent(db: DB, claim: IdempotencyClaim): Promise<void> {
  await db.delete(idempotencyRecords).where(whereClaim(claim));
}

function whereClaim(c: IdempotencyClaim) {
  return and(eq(idempotencyRecords.accountId, c.accountId), eq(idempotencyRecords.route, c.route), eq(idempotencyRecords.key, c.key));
}

function inProgress(): ApiError {
  return {
    status: 409,
    type: "invalid_request",
    code: "idempotency_in_progress",
    message: "A request with this Idempotency-Key is still in progress; retry shortly to receive its answer.",
  };
}

/** The pipeline's claim step (runMetered) for a route that takes `Idempotency-Key`. */
export async function idempotencyClaim(ctx: RouteContext, db: DB, route: string): Promise<Claim> {
  const raw = await ctx.readBody();
  if (!raw.ok) return { kind: "error", error: raw.error };
  const begun = await beginIdempotent(db, { accountId: ctx.principal.accountId, route, key: header(ctx.req, "idempotency-key"), body: raw.value });
  if (begun.kind === "none") return { kind: "go", done: async () => {}, abandon: async () => {} };
  if (begun.kind !== "claimed") return begun.kind === "replay" ? { kind: "answer", response: begun.response } : begun;
  const claim = begun.claim;
  return {
    kind: "go",
    // Only a 200 is kept: the repeat of a failed request is a new attempt.
    done: (res) => (res.status === 200 && typeof res.body === "string" ? completeIdempotent(db, claim, res.status, res.body) : abandonIdempotent(db, claim)),
    abandon: () => abandonIdempotent(db, claim),
  };
}
