/**
 * Stored Responses API responses: sealed with lib/crypto.ts, scoped to the account (and, for a
 * member, to their own keys: lib/keys/visibility.ts), deleted
 * after RESPONSES_RETENTION_DAYS. Writes leave the reply path (queued, like text settlements)
 * but are never lost before their id can be referenced: readers on this process wait for a
 * queued write of the id they look for, readers on another instance retry a miss for a moment
 * (a genuine miss is a client error, so the wait costs only that error), and shutdown waits for
 * the queue (storedResponsesIdle).
 */
import { and, arrayOverlaps, eq, gt, lt, sql } from "drizzle-orm";
import type { DB } from "../../../db/client";
import { storedResponses, type StoredResponseStatus } from "../../../db/schema";
import { decryptSecret, encryptSecret } from "../../crypto";
import { visibleTo, type Viewer } from "../../keys/visibility";
import { env } from "../../env";
import { afterReply } from "../../after-reply";
import { logger } from "../../logger";
import { sleep } from "../../sleep";
import { processSingleton } from "../../process-singleton";

export type Item = Record<string, unknown>;

/** What a stored row holds once unsealed. */
export interface StoredContent {
  /** The response object as the client saw it (status, output, usage…). */
  response: Record<string, unknown>;
  /** Every input item that produced it, replayed history first (as OpenAI lists input_items). */
  input: Item[];
  /** Background responses: the request to run (the expanded body). */
  request?: Record<string, unknown>;
}

export interface StoredResponse extends StoredContent {
  id: string;
  accountId: string;
  status: StoredResponseStatus;
  model: string;
  upstreamId: string | null;
  background: boolean;
  createdAt: Date;
}

export interface NewStoredResponse extends StoredContent {
  id: string;
  accountId: string;
  keyId: string | null;
  status: StoredResponseStatus;
  model: string;
  upstreamId: string | null;
  background?: boolean;
  /** Item ids an item_reference may name: this request's own input items and the output. */
  itemIds: string[];
}

/** Rows older than this are gone (the retention job deletes them; reads never show them). */
export function retentionCutoff(now = Date.now()): Date {
  return new Date(now - env().RESPONSES_RETENTION_DAYS * 86_400_000);
}

interface Pending {
  byId: Map<string, Promise<void>>;
  byItem: Map<string, Promise<void>>;
}
const pending = processSingleton("gateway.storedResponses.pending", (): Pending => ({ byId: new Map(), byItem: new Map() }));

function rowValues(r: NewStoredResponse) {
  return {
    id: r.id,
    accountId: r.accountId,
    keyId: r.keyId,
    status: r.status,
    model: r.model,
    upstreamId: r.upstreamId,
    background: r.background ?? false,
    itemIds: r.itemIds,
    inputCount: r.input.length,
    sealed: encryptSecret(JSON.stringify({ response: r.response, input: r.input, request: r.request } satisfies StoredContent)),
  };
}

/** Writes (or overwrites) a stored response now. */
export async function writeStoredResponse(db: DB, r: NewStoredResponse): Promise<void> {
  const v = rowValues(r);
  await db
    .insert(storedResponses)
    .values(v)
    .onConflictDoUpdate({
      target: storedResponses.id,
      set: { status: v.status, upstreamId: v.upstreamId, itemIds: v.itemIds, inputCount: v.inputCount, sealed: v.sealed, updatedAt: new Date() },
      // Never across accounts: an id is its first writer's.
      setWhere: eq(storedResponses.accountId, v.accountId),
    });
}

/**
 * Queues the write off the reply path; readers of this process wait for it. `ready` (the
 * settlement, which names the upstream that served) is awaited before writing.
 */
export function queueStoredResponse(db: DB, r: NewStoredResponse, ready?: Promise<unknown>): void {
  const p = pending();
  const write = (async () => {
    await ready?.catch(() => undefined);
    for (let attempt = 0; ; attempt++) {
      try {
        await writeStoredResponse(db, r);
        return;
      } catch (err) {
        if (attempt >= 2) {
          logger().error({ err, responseId: r.id }, "storing a response failed");
          return;
        }
        await sleep(100 * (attempt + 1));
      }
    }
  })();
  afterReply(write);
  p.byId.set(r.id, write);
  for (const i of r.itemIds) p.byItem.set(i, write);
  void write.finally(() => {
    if (p.byId.get(r.id) === write) p.byId.delete(r.id);
    for (const i of r.itemIds) if (p.byItem.get(i) === write) p.byItem.delete(i);
  });
}

/** Resolves once every queued write has committed (shutdown, tests). */
export async function storedResponsesIdle(): Promise<void> {
  const p = pending();
  while (p.byId.size) await Promise.all([...p.byId.values()]);
}

function unseal(row: typeof storedResponses.$inferSelect): StoredResponse {
  const c = JSON.parse(decryptSecret(row.sealed)) as StoredContent;
  return {
    id: row.id,
    accountId: row.accountId,
    status: row.status,
    model: row.model,
    upstreamId: row.upstreamId,
    background: row.background,
    createdAt: row.createdAt,
    response: c.response,
    input: c.input,
    request: c.request,
  };
}

/** Delays of the retry after a miss: another instance may not have committed its write yet. */
const MISS_RETRIES_MS = [25, 75, 150, 250];

async function retryMiss<T>(find: () => Promise<T | null>, retries = MISS_RETRIES_MS): Promise<T | null> {
  let found = await find();
  for (const ms of retries) {
    if (found) return found;
    await sleep(ms);
    found = await find();
  }
  return found;
}

const visible = (who: Viewer) => visibleTo(who, storedResponses);

/** The stored response the viewer may see, or null (unknown, another account's or member's, expired). */
export async function getStoredResponse(db: DB, who: Viewer, id: string, opts: { retryMiss?: boolean } = {}): Promise<StoredResponse | null> {
  await pending().byId.get(id);
  const find = async () => {
    const [row] = await db
      .select()
      .from(storedResponses)
      .where(and(eq(storedResponses.id, id), visible(who), gt(storedResponses.createdAt, retentionCutoff())))
      .limit(1);
    return row ? unseal(row) : null;
  };
  return opts.retryMiss === false ? find() : retryMiss(find);
}

/** Finds stored items the viewer may see by id (item_reference). Missing ids are absent from the map. */
export async function findStoredItems(db: DB, who: Viewer, ids: string[]): Promise<Map<string, { item: Item; response: StoredResponse }>> {
  const p = pending();
  await Promise.all(ids.map((i) => p.byItem.get(i)));
  const out = new Map<string, { item: Item; response: StoredResponse }>();
  const find = async () => {
    const want = ids.filter((i) => !out.has(i));
    const rows = await db
      .select()
      .from(storedResponses)
      .where(and(visible(who), arrayOverlaps(storedResponses.itemIds, want), gt(storedResponses.createdAt, retentionCutoff())))
      .orderBy(sql`${storedResponses.createdAt} desc`)
      .limit(50);
    for (const row of rows) {
      const r = unseal(row);
      for (const it of [...r.input, ...((r.response.output as Item[] | undefined) ?? [])]) {
        const id = it.id;
        if (typeof id === "string" && want.includes(id) && !out.has(id)) out.set(id, { item: it, response: r });
      }
    }
    return ids.every((i) => out.has(i)) ? out : null;
  };
  await retryMiss(find);
  return out;
}

/** Deletes a stored response the viewer may see; false when there was none. */
export async function deleteStoredResponse(db: DB, who: Viewer, id: string): Promise<boolean> {
  await pending().byId.get(id);
  const rows = await db
    .delete(storedResponses)
    .where(and(eq(storedResponses.id, id), visible(who)))
    .returning({ id: storedResponses.id });
  return rows.length > 0;
}

/** Retention: deletes rows older than RESPONSES_RETENTION_DAYS; returns how many. */
export async function deleteExpiredResponses(db: DB, now = Date.now(), batch = 1000): Promise<number> {
  const cutoff = retentionCutoff(now);
  let total = 0;
  for (;;) {
    const rows = await db
      .delete(storedResponses)
      .where(sql`${storedResponses.id} in (select id from ${storedResponses} where ${lt(storedResponses.createdAt, cutoff)} limit ${batch})`)
      .returning({ id: storedResponses.id });
    total += rows.length;
    if (rows.length < batch) return total;
  }
}
