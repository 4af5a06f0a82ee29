/**
 * Group commit of text settlements (DESIGN.md, "Serving the public API"): every settlement
 * (charge, release of the rest of its hold, ledger row, request-log row) still commits
 * atomically, but many of them share one transaction and a handful of set-based statements.
 * A batch is flushed at once when the flusher is idle (no timer, so a lone request waits for
 * nothing); settlements that arrive during a flush form the next batch.
 */
import { sql } from "drizzle-orm";
import type { DB, Tx } from "../../db/client";
import { ledgerEntries, requestLogs } from "../../db/schema";
import { logger } from "../logger";
import { settleInTx } from "./holds";

export interface BatchSettlement {
  /** The request's own hold row, or (with `lease`) the lease row its hold was taken from. */
  holdId: string;
  /** Set when the hold came from a balance lease (text-lease.ts): what this request held of it. */
  lease?: { heldMicroUsd: number };
  accountId: string;
  keyId: string | null;
  costMicroUsd: number;
  idempotencyKey: string;
  requestId: string;
  note?: string;
  /** The request-log row; its costMicroUsd is replaced by the amount charged. */
  log: typeof requestLogs.$inferInsert;
}

export interface BatchResult {
  chargedMicroUsd: number;
  balanceAfterMicroUsd: number;
  settled: boolean;
}

interface Pending {
  item: BatchSettlement;
  resolve(r: BatchResult): void;
  reject(e: unknown): void;
}

const MAX_BATCH = 256;
const KEY = Symbol.for("gateway.textSettleBatcher");

export class SettleBatcher {
  private queue: Pending[] = [];
  private flushing = false;

  constructor(private readonly db: DB) {}

  settle(item: BatchSettlement): Promise<BatchResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          const results = await this.db.transaction(async (tx) => {
            await relaxCommit(tx);
            return settleBatchInTx(tx, batch.map((p) => p.item));
          });
          batch.forEach((p, i) => p.resolve(results[i]!));
        } catch (err) {
          // One bad row must not fail its neighbours: settle them one by one.
          logger().warn({ err, size: batch.length }, "text settlement batch failed; settling one by one");
          for (const p of batch) {
            try {
              p.resolve(
                await this.db.transaction(async (tx) => {
                  await relaxCommit(tx);
                  return (await settleBatchInTx(tx, [p.item]))[0]!;
                }),
              );
            } catch (e) {
              p.reject(e);
            }
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

/** The process-wide batcher (one per database handle). */
export function settleBatcher(db: DB): SettleBatcher {
  const g = globalThis as unknown as Record<symbol, { db: DB; b: SettleBatcher } | undefined>;
  const cur = g[KEY];
  if (cur && cur.db === db) return cur.b;
  const b = new SettleBatcher(db);
  g[KEY] = { db, b };
  return b;
}

async function settleOneInTx(tx: Tx, item: BatchSettlement): Promise<BatchResult> {
  const r = await settleInTx(tx, {
    holdId: item.holdId,
    accountId: item.accountId,
    keyId: item.keyId,
    costMicroUsd: item.costMicroUsd,
    idempotencyKey: item.idempotencyKey,
    requestId: item.requestId,
    note: item.note,
  });
  await tx.insert(requestLogs).values({ ...item.log, costMicroUsd: r.chargedMicroUsd }).onConflictDoNothing();
  return r;
}

/**
 * `synchronous_commit = off` for this transaction only: the commit returns before its WAL
 * flush (one fsync costs ~5 ms here and would bound throughput). A PostgreSQL crash can lose
 * the last few hundred ms of settlements — atomically, hold row included: the sweeper then
 * returns those holds uncharged, so the balance still equals its ledger and never drops below
 * zero; only the revenue and the log rows of those requests are lost. The application process
 * crashing loses nothing that was acknowledged.
 */
export async function relaxCommit(tx: Tx): Promise<void> {
  await tx.execute(sql`set local synchronous_commit to off`);
}

/**
 * A PostgreSQL array literal passed as ONE parameter (drizzle would spread a JS array into a
 * tuple of parameters, which cannot be cast to an array).
 */
export function pgArray(values: ReadonlyArray<string | number>): string {
  return `{${values.map((v) => (typeof v === "number" ? String(v) : `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`)).join(",")}}`;
}

const rowsOf = <T>(r: unknown): T[] => (r as { rows: T[] }).rows;

/** The same effects as settleInTx + the log insert for each item, in set-based statements. */
export async function settleBatchInTx(tx: Tx, items: BatchSettlement[]): Promise<BatchResult[]> {
  if (items.length === 1 && !items[0]!.lease) return [await settleOneInTx(tx, items[0]!)];
  const own = items.filter((i) => !i.lease);
  const removed = own.length
    ? rowsOf<{ id: string; amount: string | number }>(
        await tx.execute(sql`delete from holds where id = any(${pgArray(own.map((i) => i.holdId))}::text[]) returning id, amount_micro_usd as amount`),
      )
    : [];
  const held = new Map(removed.map((r) => [r.id, Number(r.amount)]));
  const charged = items.map((i) => {
    if (i.lease) return Math.min(Math.max(0, Math.ceil(i.costMicroUsd)), i.lease.heldMicroUsd);
    const h = held.get(i.holdId);
    return h === undefined ? null : Math.min(Math.max(0, Math.ceil(i.costMicroUsd)), h);
  });
  // Leased holds: each charge leaves the lease row (and so `held`); a lease that is gone
  // (released idle or swept) already gave its money back to `held`, so only the balance pays.
  const leaseCost = new Map<string, number>();
  items.forEach((i, n) => {
    if (i.lease) leaseCost.set(i.holdId, (leaseCost.get(i.holdId) ?? 0) + charged[n]!);
  });
  const liveLeases = new Set<string>();
  if (leaseCost.size) {
    const ids = [...leaseCost.keys()];
    const found = rowsOf<{ id: string }>(
      await tx.execute(sql`
        update holds h set amount_micro_usd = h.amount_micro_usd - v.cost
          from (select unnest(${pgArray(ids)}::text[]) as id, unnest(${pgArray(ids.map((i) => leaseCost.get(i)!))}::bigint[]) as cost) v
         where h.id = v.id
        returning h.id`),
    );
    for (const f of found) liveLeases.add(f.id);
  }
  const heldBack = (i: BatchSettlement, n: number) => (i.lease ? (liveLeases.has(i.holdId) ? charged[n]! : 0) : held.get(i.holdId)!);

  // Per account and per key: total charge and total hold returned.
  const acct = new Map<string, { cost: number; held: number }>();
  const keys = new Map<string, { cost: number; held: number }>();
  items.forEach((i, n) => {
    const c = charged[n];
    if (c === null) return;
    const h = heldBack(i, n);
    const a = acct.get(i.accountId) ?? { cost: 0, held: 0 };
    a.cost += c;
    a.held += h;
    acct.set(i.accountId, a);
    if (i.keyId) {
      const k = keys.get(i.keyId) ?? { cost: 0, held: 0 };
      k.cost += c;
      k.held += h;
      keys.set(i.keyId, k);
    }
  });
  const balances = new Map<string, number>();
  if (acct.size) {
    const ids = [...acct.keys()];
    const updated = rowsOf<{ id: string; balance: string | number }>(
      await tx.execute(sql`
        update accounts a set balance_micro_usd = a.balance_micro_usd - v.cost, held_micro_usd = a.held_micro_usd - v.held
          from (select unnest(${pgArray(ids)}::text[]) as id, unnest(${pgArray(ids.map((i) => acct.get(i)!.cost))}::bigint[]) as cost,
                       unnest(${pgArray(ids.map((i) => acct.get(i)!.held))}::bigint[]) as held) v
         where a.id = v.id
        returning a.id, a.balance_micro_usd as balance`),
    );
    for (const u of updated) balances.set(u.id, Number(u.balance));
  }
  if (keys.size) {
    const ids = [...keys.keys()];
    await tx.execute(sql`
      update api_keys k set spent_micro_usd = k.spent_micro_usd + v.cost, held_micro_usd = k.held_micro_usd - v.held
        from (select unnest(${pgArray(ids)}::text[]) as id, unnest(${pgArray(ids.map((i) => keys.get(i)!.cost))}::bigint[]) as cost,
                     unnest(${pgArray(ids.map((i) => keys.get(i)!.held))}::bigint[]) as held) v
       where k.id = v.id`);
  }

  // Each ledger row carries the balance right after it: walk each account's rows backwards from its final balance.
  const after = new Array<number>(items.length);
  const running = new Map(balances);
  for (let n = items.length - 1; n >= 0; n--) {
    const i = items[n]!;
    const b = running.get(i.accountId) ?? 0;
    after[n] = b;
    if (charged[n] !== null) running.set(i.accountId, b + charged[n]!);
  }
  const ledger = items
    .map((i, n) => ({ i, n }))
    .filter(({ n }) => (charged[n] ?? 0) > 0)
    .map(({ i, n }) => ({
      accountId: i.accountId,
      deltaMicroUsd: -charged[n]!,
      balanceAfterMicroUsd: after[n]!,
      kind: "charge" as const,
      idempotencyKey: i.idempotencyKey,
      requestId: i.requestId,
      keyId: i.keyId ?? undefined,
      note: i.note,
    }));
  if (ledger.length) await tx.insert(ledgerEntries).values(ledger);
  await tx
    .insert(requestLogs)
    .values(items.map((i, n) => ({ ...i.log, costMicroUsd: charged[n] ?? 0 })))
    .onConflictDoNothing();

  return items.map((i, n) => {
    const c = charged[n];
    return c === null
      ? { chargedMicroUsd: 0, balanceAfterMicroUsd: after[n] ?? balances.get(i.accountId) ?? 0, settled: false }
      : { chargedMicroUsd: c, balanceAfterMicroUsd: after[n]!, settled: true };
  });
}
