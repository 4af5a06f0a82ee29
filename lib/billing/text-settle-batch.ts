/**
 * Group commit of text settlements (docs/design.md, "Serving the public API"): every settlement
 * (charge, release of the rest of its hold, ledger row, request-log row) still commits
 * atomically, but many of them share one set-based statement: one round trip per batch, and a
 * lone request's settlement is a single round trip too. When the flusher is idle, a settlement
 * somebody waits for (a stream's last bytes, a reply that needs its balance read back) is
 * flushed at once; one whose reply has already gone (decision 0006) waits up to LINGER_MS for
 * company, so that at low load lone settlements still share a statement (decision 0031).
 * Settlements that arrive during a flush form the next batch, which lingers in turn unless
 * somebody waits for it or it is full.
 */
import { sql } from "drizzle-orm";
import { preparedQuery, type DB, type Tx } from "../../db/client";
import { logger } from "../logger";
import { processSingleton } from "../process-singleton";
import { balanceView, type BalanceView } from "./balance-view";
import { accountsFirst } from "./lock-order";
import type { Hold } from "./port";
import { LOG_COLUMNS, type RequestLogRow } from "./request-log";
import { retryTransient, settleWithRepair, UNKNOWN_COST_NOTE, withNote } from "./settle-retry";

export interface BatchSettlement {
  /** The request's own hold row, or the part of a lease (text-lease.ts) it held. */
  hold: Hold;
  costMicroUsd: number;
  idempotencyKey: string;
  /** The ledger row's note. */
  note?: string;
  /**
   * The request-log row (request-log.ts); its account, key and request id are the settlement's,
   * its costMicroUsd is replaced by the amount charged.
   */
  log: RequestLogRow;
}

export interface BatchResult {
  chargedMicroUsd: number;
  balanceAfterMicroUsd: number;
  settled: boolean;
}

interface Pending {
  item: BatchSettlement;
  /** Somebody waits for this settlement's result: no linger. */
  urgent: boolean;
  /** The charge announced to the balance view (what the statement will charge unless the hold is gone). */
  issued: number;
  resolve(r: BatchResult): void;
  reject(e: unknown): void;
}

/** A queued settlement: its charge and, when the balance view can tell, the balance after it at once. */
export interface Submitted {
  chargedMicroUsd: number;
  balanceAfterMicroUsd: number | null;
  result: Promise<BatchResult>;
}

const MAX_BATCH = 256;
/**
 * How long an idle flusher lets a settlement whose reply has gone wait for others (decision
 * 0031): at one client (~1.5 requests a millisecond) one statement, one round trip and one
 * wake-up for ~15 settlements instead of one each (measured: −15 % gateway CPU per request;
 * 2 ms gained nothing). Far below what the balance view (1 s), a lease's idle return (which
 * flushes first) or the relaxed commit's loss window (0005) notice.
 */
export const LINGER_MS = 10;
/** ...unless this many are already waiting. */
const LINGER_ITEMS = 64;
/** The process-wide batcher (one per database handle). */
const current = processSingleton("gateway.settleBatcher", () => ({ current: undefined as { db: DB; b: SettleBatcher } | undefined }));

export class SettleBatcher {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  /** An idle flusher's linger (decision 0031): set while only early settlements wait. */
  private lingering: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: DB,
    private readonly view: BalanceView = balanceView(),
    private readonly lingerMs = LINGER_MS,
  ) {}

  settle(item: BatchSettlement): Promise<BatchResult> {
    return this.submit(item).result;
  }

  /**
   * Queues a settlement. `early`: its reply goes before the commit (decision 0006) — it may then
   * linger, but only when the balance view answered, i.e. when nobody waits for the result.
   */
  submit(item: BatchSettlement, opts?: { early?: boolean }): Submitted {
    if (!Number.isFinite(item.costMicroUsd)) item = { ...item, log: { ...item.log, usageNote: withNote(item.log.usageNote, UNKNOWN_COST_NOTE) } };
    // The statement clamps the charge to the hold (to nothing when a hold row is gone already).
    const issued = Math.min(chargeOf(item), item.hold.amountMicroUsd);
    const balanceAfter = this.view.charge(accountOf(item), issued);
    const urgent = !opts?.early || balanceAfter === null;
    const result = new Promise<BatchResult>((resolve, reject) => {
      this.queue.push({ item, urgent, issued, resolve, reject });
    });
    this.kick(urgent);
    return { chargedMicroUsd: issued, balanceAfterMicroUsd: balanceAfter, result };
  }

  /**
   * Starts the flusher unless it runs (it takes whatever queued meanwhile): at once when somebody
   * waits, else after the linger, which lets the next few early settlements join the statement.
   */
  private kick(urgent: boolean): void {
    if (this.flushing) return;
    if (this.mayLinger(urgent)) {
      this.lingering ??= setTimeout(() => this.flushNow(), this.lingerMs);
      return;
    }
    this.flushNow();
  }

  /** Nobody waits for what is queued and it does not fill a batch yet. */
  private mayLinger(urgent = this.queue.some((p) => p.urgent)): boolean {
    return !urgent && this.lingerMs > 0 && this.queue.length < LINGER_ITEMS;
  }

  private flushNow(): void {
    if (this.lingering) {
      clearTimeout(this.lingering);
      this.lingering = null;
    }
    this.flushing ??= this.flush().finally(() => {
      this.flushing = null;
      // Queued between the flusher's last look and now.
      if (this.queue.length) this.kick(this.queue.some((p) => p.urgent));
    });
  }

  /** Resolves once everything queued so far is written (shutdown, read-your-writes, a lease's return). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.lingering) this.flushNow();
      if (!this.flushing) return;
      await this.flushing;
    }
  }

  private async flush(): Promise<void> {
    // After the first statement, settlements that came meanwhile go next only if somebody waits
    // or they fill a batch; otherwise the flusher stops and they linger like any others (else at
    // low load the flusher runs back to back, one or two settlements a statement).
    for (let first = true; this.queue.length && (first || !this.mayLinger()); first = false) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const results = await retryTransient(() => settleBatch(this.db, batch.map((p) => p.item)));
        batch.forEach((p, i) => this.done(p, results[i]!));
      } catch (err) {
        // One bad row must not fail its neighbours: settle them one by one.
        logger().warn({ err, size: batch.length }, "settlement batch failed; settling one by one");
        for (const p of batch) await this.settleAlone(p);
      }
    }
  }

  /**
   * One settlement, retried (settle-retry.ts): unchanged after a transient failure, with its log
   * row repaired after a refusal. Only if both fail for good is the request left uncharged
   * (logged with its request id); its lease money goes back when the lease is returned.
   */
  private async settleAlone(p: Pending): Promise<void> {
    try {
      this.done(p, (await settleWithRepair(p.item.log, (log) => settleBatch(this.db, [{ ...p.item, log }])))[0]!);
    } catch (err) {
      logger().error({ err, requestId: p.item.log.requestId }, "settlement failed for good: the request stays uncharged, its hold goes back");
      this.view.settled(accountOf(p.item), p.issued, null);
      p.reject(err);
    }
  }

  private done(p: Pending, r: BatchResult): void {
    this.view.settled(accountOf(p.item), p.issued, r.balanceAfterMicroUsd);
    p.resolve(r);
  }
}

/** The process-wide batcher (one per database handle). */
export function settleBatcher(db: DB): SettleBatcher {
  const slot = current();
  if (slot.current?.db === db) return slot.current.b;
  const b = new SettleBatcher(db);
  slot.current = { db, b };
  return b;
}

/** Waits until the process-wide batcher has written everything queued so far (no-op without one). */
export async function textSettlementsIdle(): Promise<void> {
  await current().current?.b.idle();
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
 * What to charge (the statements clamp it to the hold): a cost that is not a finite number means
 * the work was done but its price is unknown, so the whole hold is charged (never nothing).
 */
function chargeOf(i: BatchSettlement): number {
  const c = i.costMicroUsd;
  if (Number.isFinite(c)) return Math.max(0, Math.ceil(c));
  return i.hold.amountMicroUsd;
}

const accountOf = (i: BatchSettlement) => i.log.accountId!;

/**
 * One settlement's fields as the statements read them (name, SQL type): the money's, then the
 * log row's (request-log.ts LOG_COLUMNS, which include the account, key and request ids).
 */
const MONEY_COLUMNS = [["n", "int"], ["hold_id", "text"], ["lease_held", "bigint"], ["cost", "bigint"], ["idempotency_key", "text"], ["note", "text"]] as const;
const COLUMNS: ReadonlyArray<readonly [string, string]> = [...MONEY_COLUMNS, ...LOG_COLUMNS.map((c) => [c.name, c.type] as const)];
const LOG_NAMES = LOG_COLUMNS.map((c) => c.name).join(", ");

function record(i: BatchSettlement, n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    n,
    hold_id: i.hold.kind === "lease" ? i.hold.leaseId : i.hold.holdId,
    lease_held: i.hold.kind === "lease" ? i.hold.amountMicroUsd : null,
    cost: chargeOf(i),
    idempotency_key: i.idempotencyKey,
    note: i.note ?? null,
  };
  for (const c of LOG_COLUMNS) out[c.name] = i.log[c.key] ?? null;
  return out;
}

/**
 * What both statements end with, once `settled` holds each item with its `charge` (null when
 * its own hold was gone: settled or swept already, nothing to do) and `balance_after`: the
 * ledger rows, the request-log rows, the relaxed commit (see relaxCommit), the answer.
 */
const TAIL = `
ledger as (
  insert into ledger_entries (account_id, delta_micro_usd, balance_after_micro_usd, kind, idempotency_key, request_id, key_id, note)
  select account_id, -charge, balance_after, 'charge', idempotency_key, request_id, key_id, note
    from settled where charge > 0 order by n
),
logs as (
  insert into request_logs (${LOG_NAMES}, cost_micro_usd)
  select ${LOG_NAMES}, coalesce(charge, 0) from settled order by n
  on conflict do nothing
),
relaxed as (select set_config('synchronous_commit', 'off', true))
select s.n, s.charge, s.balance_after from settled s, relaxed order by s.n`;

/**
 * A lone settlement (the common case at low load, so its latency is the request's): the same
 * effects as one item of the batch statement, in the plainest plan. Own hold: deleted, charge at
 * most its amount. Leased hold: charge at most what the request held, taken out of the lease row;
 * a lease that is gone already gave its money back to `held`, so only the balance pays.
 * Lock order hold row → account → key (lock-order.ts).
 */
const SETTLE_ONE_SQL = `
with item as (select ${COLUMNS.map(([c, t], k) => `$${k + 1}::${t === "jsonb" ? "text::jsonb" : t} as ${c}`).join(", ")}),
own as (
  delete from holds h using item i where i.lease_held is null and h.id = i.hold_id
  returning h.amount_micro_usd as amount
),
live_lease as (
  update holds h set amount_micro_usd = h.amount_micro_usd - least(i.cost, i.lease_held)
    from item i where i.lease_held is not null and h.id = i.hold_id
  returning h.id
),
charged as (
  select i.*,
         case when i.lease_held is not null then least(i.cost, i.lease_held)
              when exists (select 1 from own) then least(i.cost, (select amount from own)) end as charge,
         case when i.lease_held is null then (select amount from own)
              when exists (select 1 from live_lease) then least(i.cost, i.lease_held) else 0 end as held_back
    from item i
),
account_row as (
  update accounts a set balance_micro_usd = a.balance_micro_usd - c.charge, held_micro_usd = a.held_micro_usd - c.held_back
    from charged c where c.charge is not null and a.id = c.account_id
  returning a.balance_micro_usd as balance
),
key_row as (
  update api_keys k set spent_micro_usd = k.spent_micro_usd + c.charge, held_micro_usd = k.held_micro_usd - c.held_back
    from charged c, ${accountsFirst("account_row")}
   where c.charge is not null and k.id = c.key_id
),
settled as (
  select c.*, coalesce((select balance from account_row), (select a.balance_micro_usd from accounts a where a.id = c.account_id)) as balance_after
    from charged c
),${TAIL}`;

/**
 * Many settlements in one set-based statement: per item as SETTLE_ONE_SQL; accounts and keys
 * are updated once each with the batch's totals, and each ledger row carries the balance right
 * after it (the final balance plus the charges of the same account later in the batch). The
 * account totals need every hold row first, accounts are locked in id order, then keys in id
 * order (two instances' batches over the same rows queue instead of deadlocking).
 */
const SETTLE_BATCH_SQL = `
with items as (select * from jsonb_to_recordset(($1::text)::jsonb) as i(${COLUMNS.map(([c, t]) => `${c} ${t}`).join(", ")})),
own as (
  delete from holds h using items i where i.lease_held is null and h.id = i.hold_id
  returning h.id, h.amount_micro_usd as amount
),
lease_use as (
  select hold_id, sum(least(cost, lease_held))::bigint as cost from items where lease_held is not null group by hold_id
),
live_lease as (
  update holds h set amount_micro_usd = h.amount_micro_usd - u.cost from lease_use u where h.id = u.hold_id
  returning h.id
),
charged as (
  select i.*,
         case when i.lease_held is not null then least(i.cost, i.lease_held)
              when o.id is not null then least(i.cost, o.amount) end as charge,
         case when i.lease_held is null then o.amount
              when l.id is not null then least(i.cost, i.lease_held) else 0 end as held_back
    from items i
    left join own o on i.lease_held is null and o.id = i.hold_id
    left join live_lease l on i.lease_held is not null and l.id = i.hold_id
),
account_totals as (
  select account_id, sum(charge)::bigint as cost, sum(held_back)::bigint as held
    from charged where charge is not null group by account_id
),
account_lock as (
  select a.id from accounts a where a.id in (select account_id from account_totals) order by a.id for update
),
account_rows as (
  update accounts a set balance_micro_usd = a.balance_micro_usd - t.cost, held_micro_usd = a.held_micro_usd - t.held
    from account_totals t, ${accountsFirst("account_lock")} where a.id = t.account_id
  returning a.id, a.balance_micro_usd as balance
),
key_totals as (
  select key_id, sum(charge)::bigint as cost, sum(held_back)::bigint as held
    from charged where charge is not null and key_id is not null group by key_id
),
key_lock as (
  select k.id from api_keys k, ${accountsFirst("account_rows")}
   where k.id in (select key_id from key_totals) order by k.id for update of k
),
key_rows as (
  update api_keys k set spent_micro_usd = k.spent_micro_usd + t.cost, held_micro_usd = k.held_micro_usd - t.held
    from key_totals t, ${accountsFirst("key_lock")}
   where k.id = t.key_id
),
settled as (
  select c.*,
         coalesce(r.balance + coalesce(sum(c.charge) over (partition by c.account_id order by c.n rows between 1 following and unbounded following), 0),
                  (select a.balance_micro_usd from accounts a where a.id = c.account_id))::bigint as balance_after
    from charged c left join account_rows r on r.id = c.account_id
),${TAIL}`;

type SettledRow = { n: number; charge: string | number | null; balance_after: string | number | null };

/**
 * Settles `items` in one statement (one round trip, committed on its own): for each item, its
 * charge, the rest of its hold returned, its ledger row and its request-log row.
 */
export async function settleBatch(db: DB, items: BatchSettlement[]): Promise<BatchResult[]> {
  const out =
    items.length === 1
      ? await preparedQuery<SettledRow>(db, "gw_settle_one_v3", SETTLE_ONE_SQL, oneParams(items[0]!))
      : await preparedQuery<SettledRow>(db, "gw_settle_batch_v3", SETTLE_BATCH_SQL, [JSON.stringify(items.map(record))]);
  return out.map((r) =>
    r.charge === null
      ? { chargedMicroUsd: 0, balanceAfterMicroUsd: Number(r.balance_after ?? 0), settled: false }
      : { chargedMicroUsd: Number(r.charge), balanceAfterMicroUsd: Number(r.balance_after), settled: true },
  );
}

function oneParams(i: BatchSettlement): unknown[] {
  const r = record(i, 0);
  return COLUMNS.map(([c]) => param(r[c]));
}

/** Objects (the price snapshot) go as JSON text; the statement casts them to jsonb. */
const param = (v: unknown) => (v !== null && typeof v === "object" ? JSON.stringify(v) : v);
