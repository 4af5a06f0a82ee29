/**
 * The two implementations of the billing port (port.ts), and the factory that picks one.
 *
 * - HoldBilling: every reservation is a `holds` row of its own (holds.ts `reserveHold`, one
 *   statement). Embeddings, images, and text with GATEWAY_TEXT_LEASES=off.
 * - LeaseBilling: reservations are served from this process's lease of the account's balance
 *   (text-lease.ts); the hot text path (decisions 0005, 0011).
 *
 * Both settle the same way: one item of the group-committed settlement statement
 * (text-settle-batch.ts) — charge clamped to the hold, the rest returned, ledger row and the
 * request's one log row (request-log.ts) in the same statement, retried on failure
 * (settle-retry.ts). Only what a hold is, and what happens to a lease afterwards, differs.
 */
import { sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { afterReply } from "../after-reply";
import { env } from "../env";
import { logger } from "../logger";
import { metrics } from "../metrics";
import { processSingleton } from "../process-singleton";
import { reserveHold } from "./holds";
import { overLimit } from "./lock-order";
import { raiseLimitAlert } from "./limit-alerts";
import type { BillingPort, BillingRequest, Hold, Reservation, Settled, Settlement } from "./port";
import { insertRequestLog, requestLogRow } from "./request-log";
import { DEFAULT_LEASE, LeaseManager } from "./text-lease";
import { settleBatcher } from "./text-settle-batch";

/** A hold row outlives the longest failover chain, so the sweeper never returns money still in use. */
export const DEFAULT_HOLD_TTL_MS = 60 * 60_000;

export interface BillingOptions {
  /** The hot text path: served from balance leases unless GATEWAY_TEXT_LEASES=off. */
  hotPath?: boolean;
}

export function billingFor(db: DB, req: BillingRequest, opts: BillingOptions = {}): BillingPort {
  const m = opts.hotPath ? textLeases(db) : null;
  return m ? new LeaseBilling(db, req, m) : new HoldBilling(db, req);
}

const leases = processSingleton("gateway.textLeases", () => ({ current: undefined as { db: DB; m: LeaseManager } | undefined }));

/**
 * The process-wide lease manager (one per database handle), or null when leases are off:
 * GATEWAY_TEXT_LEASES=off, or serverless mode, where a lease would stay held while its instance
 * sleeps and make other instances refuse covered requests (decision 0042).
 */
export function textLeases(db: DB): LeaseManager | null {
  if (!env().GATEWAY_TEXT_LEASES || env().serverless) return null;
  const slot = leases();
  if (slot.current?.db === db) return slot.current.m;
  slot.current?.m.stop();
  const m = new LeaseManager(db, DEFAULT_LEASE, !!env().DATABASE_URL);
  slot.current = { db, m };
  return m;
}

abstract class Billing implements BillingPort {
  /**
   * Settling a hold twice answers the first settlement again (a retry must not charge twice).
   * Kept here, per request, not in a module-wide WeakMap: V8's young-generation collector
   * treats a long-lived WeakMap's young entries as live, so every request's graph reachable
   * from its settlement would be promoted to the old generation (docs/performance.md).
   */
  private readonly settlements = new Map<Hold, Promise<Settled>>();

  constructor(
    protected readonly db: DB,
    protected readonly req: BillingRequest,
  ) {}

  protected abstract take(amountMicroUsd: number, ttlMs: number | undefined): Promise<Reservation>;
  /** After the charge is issued: a lease takes its hold back and loses the charge. */
  protected afterCharge(_hold: Hold, _chargedMicroUsd: number): void {}

  async reserve(amountMicroUsd: number, opts?: { ttlMs?: number }): Promise<Reservation> {
    let r = await this.take(amountMicroUsd, opts?.ttlMs);
    if (!r.ok && r.reason === "insufficient_balance") r = await this.shortOf(amountMicroUsd, opts);
    if (r.ok) return r;
    if (r.reason === "budget_exceeded" || r.reason === "member_cap_exceeded") {
      // Told once per window (raiseLimitAlert's dedupe key); the 402 does not wait for it.
      afterReply(raiseLimitAlert(this.db, this.req.accountId, this.req.keyId, r).catch((err) => logger().warn({ err, requestId: this.req.requestId }, "limit alert not raised")));
    }
    return r;
  }

  /**
   * A refusal for the balance, checked off the hot path (only a refused request gets here): what
   * it could have had, and whether the balance is what bound. It may not be: at a budget's edge,
   * claims for money the budget refused take a lease's room back while a request grows it, and
   * that request ran out of rounds with $39 of balance free. The refusal then names the limit
   * that binds (budget, member's cap), or the request tries once more.
   */
  private async shortOf(amountMicroUsd: number, opts?: { ttlMs?: number }): Promise<Reservation> {
    const availableMicroUsd = await spendable(this.db, this.req.accountId);
    if (availableMicroUsd < amountMicroUsd || !this.req.keyId) return { ok: false, reason: "insufficient_balance", availableMicroUsd };
    const binding = await overLimit(this.db, this.req.keyId, amountMicroUsd);
    if (binding) return { ok: false, ...binding };
    const again = await this.take(amountMicroUsd, opts?.ttlMs);
    return again.ok || again.reason !== "insufficient_balance" ? again : { ...again, availableMicroUsd };
  }

  settle(hold: Hold | null, s: Settlement, opts?: { early?: boolean }): Promise<Settled> {
    if (!hold) return insertRequestLog(this.db, requestLogRow(this.req, s.log)).then(() => ({ chargedMicroUsd: 0, balanceAfterMicroUsd: null }));
    let p = this.settlements.get(hold);
    if (!p) {
      p = this.charge(hold, s, opts);
      this.settlements.set(hold, p);
    }
    return p;
  }

  private async charge(hold: Hold, s: Settlement, opts?: { early?: boolean }): Promise<Settled> {
    const { req } = this;
    const early = !!opts?.early && req.settleAfterReply;
    const submitted = settleBatcher(this.db).submit(
      {
        hold,
        costMicroUsd: s.costMicroUsd,
        idempotencyKey: `charge:${req.requestId}`,
        note: s.log.model ?? undefined,
        log: requestLogRow(req, s.log),
      },
      { early },
    );
    this.afterCharge(hold, submitted.chargedMicroUsd);
    const result = submitted.result.then((r) => {
      // The one place money is counted for /metrics: what the ledger was charged, per model.
      if (r.chargedMicroUsd > 0) metrics().spend.inc({ model: s.log.model ?? "" }, r.chargedMicroUsd);
      return r;
    });
    if (early && submitted.balanceAfterMicroUsd !== null) {
      // The reply goes now; the settlement commits a moment later (retried, settle-retry.ts; if
      // the database refuses it for good, that is logged and the hold goes back uncharged).
      // (Never in serverless mode, where nothing may outlive the invocation: decision 0042.)
      result.catch((err) => logger().error({ err, requestId: req.requestId }, "settlement failed after the reply"));
      return { chargedMicroUsd: submitted.chargedMicroUsd, balanceAfterMicroUsd: submitted.balanceAfterMicroUsd };
    }
    const r = await result;
    return { chargedMicroUsd: r.chargedMicroUsd, balanceAfterMicroUsd: r.balanceAfterMicroUsd };
  }
}

/** Per-request hold rows (holds.ts). */
export class HoldBilling extends Billing {
  protected take(amountMicroUsd: number, ttlMs: number | undefined) {
    return reserveHold(this.db, { accountId: this.req.accountId, keyId: this.req.keyId, amountMicroUsd, ttlMs: ttlMs ?? DEFAULT_HOLD_TTL_MS });
  }
}

/** Holds served from this process's balance leases (text-lease.ts). */
export class LeaseBilling extends Billing {
  constructor(
    db: DB,
    req: BillingRequest,
    private readonly leases: LeaseManager,
  ) {
    super(db, req);
  }

  protected take(amountMicroUsd: number) {
    return this.leases.reserve(this.req.accountId, this.req.keyId, amountMicroUsd);
  }

  protected afterCharge(hold: Hold, chargedMicroUsd: number): void {
    if (hold.kind === "lease") this.leases.released(hold, this.req.accountId, this.req.keyId, chargedMicroUsd);
  }
}

/** The most the account could spend now: its free balance plus its leases, which a claim hands back (text-lease.ts). */
async function spendable(db: DB, accountId: string): Promise<number> {
  const free = (await db.execute(sql`
    select (select balance_micro_usd - held_micro_usd from accounts where id = ${accountId})
         + coalesce((select sum(amount_micro_usd) from holds where account_id = ${accountId} and instance_id is not null), 0) as spendable`)) as unknown as {
    rows: { spendable: string | number | null }[];
  };
  return Math.max(0, Number(free.rows[0]?.spendable ?? 0));
}
