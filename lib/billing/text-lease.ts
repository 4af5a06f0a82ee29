/**
 * Balance leases (DESIGN.md, "Serving the public API"): instead of one hold row and one
 * conditional UPDATE per request, this process moves a chunk of an account's (and key's)
 * spendable money into `held` with one conditional UPDATE, records it as a hold row with its
 * instance id and an expiry, and then serves the holds of that account's requests from memory.
 *
 * Invariants, the same as per-request holds:
 * - money leased is in accounts.held (and api_keys.held), so no other request anywhere can
 *   spend it; requests of this process never hold more than the lease (sum of in-use ≤ lease);
 * - each charge consumes the lease: balance −= cost, held −= cost, lease −= cost, in the
 *   settlement's own transaction (text-settle-batch.ts);
 * - an idle lease is returned (row deleted, held −= its amount); a crashed process's lease
 *   expires and the hold sweeper returns it. A settlement whose lease row is gone charges the
 *   balance only (the sweeper or the idle release already took the rest out of held).
 */
import { eq, sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { holds } from "../../db/schema";
import { newId, randomBase62 } from "../ids";
import { moveMoney } from "./lock-order";
import { relaxCommit } from "./text-settle-batch";

export interface LeaseOptions {
  /** Lease rows expire (and are swept) this long after their last extension or renewal. */
  ttlMs: number;
  /** A lease nobody uses for this long goes back to the account. */
  idleMs: number;
  /** An extension asks for this many times the request's hold, falling back to what is needed. */
  chunkFactor: number;
}

export const DEFAULT_LEASE: LeaseOptions = { ttlMs: 10 * 60_000, idleMs: 500, chunkFactor: 8 };

export type LeaseGrant = { ok: true; leaseId: string; amountMicroUsd: number } | { ok: false; reason: "insufficient_balance" | "key_limit_exceeded" };

interface Lease {
  accountId: string;
  keyId: string | null;
  id: string | null;
  /** What the lease row holds (and what it added to accounts.held / api_keys.held). */
  amount: number;
  /** Sum of the holds of requests in flight. */
  inUse: number;
  /** When the row expires (epoch ms): past it, the sweeper may have returned it, so no fast path. */
  expiresAt: number;
  chain: Promise<unknown>;
  idle: NodeJS.Timeout | null;
}

class Rejected extends Error {
  constructor(readonly reason: "insufficient_balance" | "key_limit_exceeded") {
    super(reason);
  }
}

export class LeaseManager {
  private readonly leases = new Map<string, Lease>();
  readonly instanceId = `inst_${randomBase62(12)}`;
  private renewTimer: NodeJS.Timeout;

  constructor(
    private readonly db: DB,
    private readonly opts: LeaseOptions = DEFAULT_LEASE,
  ) {
    this.renewTimer = setInterval(() => void this.renewAll(), Math.max(1000, opts.ttlMs / 4));
    this.renewTimer.unref();
  }

  private leaseFor(accountId: string, keyId: string | null): Lease {
    const k = `${accountId}|${keyId ?? ""}`;
    let l = this.leases.get(k);
    if (!l) {
      l = { accountId, keyId, id: null, amount: 0, inUse: 0, expiresAt: 0, chain: Promise.resolve(), idle: null };
      this.leases.set(k, l);
    }
    return l;
  }

  /** Runs DB changes of one lease one at a time (extensions, release). */
  private serial<T>(l: Lease, fn: () => Promise<T>): Promise<T> {
    const p = l.chain.then(fn, fn);
    l.chain = p.catch(() => undefined);
    return p;
  }

  async reserve(accountId: string, keyId: string | null, amountMicroUsd: number): Promise<LeaseGrant> {
    const amt = Math.max(0, Math.ceil(amountMicroUsd));
    const l = this.leaseFor(accountId, keyId);
    if (l.idle) {
      clearTimeout(l.idle);
      l.idle = null;
    }
    // Fast path: the lease has room and cannot have been swept (no database work at all).
    if (l.id && l.amount - l.inUse >= amt && this.fresh(l)) {
      l.inUse += amt;
      return { ok: true, leaseId: l.id, amountMicroUsd: amt };
    }
    return this.serial(l, async () => {
      try {
        return await this.grow(l, amt);
      } finally {
        // Whatever happened (a refusal, a database error), an unused lease goes back when idle.
        this.scheduleIdle(l);
      }
    });
  }

  private async grow(l: Lease, amt: number): Promise<LeaseGrant> {
    if (l.id && l.amount - l.inUse >= amt && this.fresh(l)) {
      l.inUse += amt;
      return { ok: true, leaseId: l.id, amountMicroUsd: amt } as const;
    }
    const need = amt - (l.id ? l.amount - l.inUse : 0);
    let reason: "insufficient_balance" | "key_limit_exceeded" = "insufficient_balance";
    for (const x of [...new Set([Math.max(need, amt * this.opts.chunkFactor), need])]) {
      const r = await this.extend(l, x);
      if (r === true) {
        l.inUse += amt;
        return { ok: true, leaseId: l.id!, amountMicroUsd: amt } as const;
      }
      reason = r;
    }
    return { ok: false, reason } as const;
  }

  /** Far enough from expiry (a lease is renewed every ttl/4) that the sweeper cannot have it. */
  private fresh(l: Lease): boolean {
    return Date.now() < l.expiresAt - this.opts.ttlMs / 8;
  }

  /** A request finished: its hold returns to the lease, its charge leaves it. */
  released(leaseId: string, accountId: string, keyId: string | null, heldMicroUsd: number, chargedMicroUsd: number): void {
    const l = this.leaseFor(accountId, keyId);
    l.inUse = Math.max(0, l.inUse - heldMicroUsd);
    // Only the lease this request took (it may have been replaced since).
    if (l.id === leaseId) l.amount = Math.max(0, l.amount - chargedMicroUsd);
    this.scheduleIdle(l);
  }

  private scheduleIdle(l: Lease) {
    if (l.inUse > 0 || l.idle || !l.id) return;
    l.idle = setTimeout(() => {
      l.idle = null;
      void this.serial(l, () => this.release(l)).catch(() => undefined);
    }, this.opts.idleMs);
    l.idle.unref();
  }

  /** Moves `x` more into the lease; true, or why not. */
  private async extend(l: Lease, x: number): Promise<true | "insufficient_balance" | "key_limit_exceeded"> {
    const expires = new Date(Date.now() + this.opts.ttlMs);
    try {
      // Lock order hold row → account → key (lock-order.ts).
      const id = await this.db.transaction(async (tx) => {
        await relaxCommit(tx);
        let live = false;
        if (l.id) {
          const h = await tx
            .update(holds)
            .set({ amountMicroUsd: sql`${holds.amountMicroUsd} + ${x}`, expiresAt: expires })
            .where(eq(holds.id, l.id))
            .returning({ id: holds.id });
          live = h.length > 0;
        }
        const moved = await moveMoney(tx, { accountId: l.accountId, keyId: l.keyId, held: x, require: x });
        if (!moved.ok) throw new Rejected(moved.reason);
        if (live) return l.id!;
        // No lease yet, or it was swept or released under us: start a new one.
        const newIdValue = newId("hold");
        await tx.insert(holds).values({ id: newIdValue, accountId: l.accountId, keyId: l.keyId, amountMicroUsd: x, instanceId: this.instanceId, expiresAt: expires });
        return newIdValue;
      });
      if (id !== l.id) {
        // A replaced lease: requests still in flight on the old one settle against the balance only.
        l.id = id;
        l.amount = x;
      } else l.amount += x;
      l.expiresAt = expires.getTime();
      return true;
    } catch (err) {
      if (err instanceof Rejected) return err.reason;
      throw err;
    }
  }

  /** Returns an idle lease's whole amount to the account (and key). */
  private async release(l: Lease): Promise<void> {
    if (!l.id || l.inUse > 0) return;
    const id = l.id;
    l.id = null;
    l.amount = 0;
    await this.db.transaction(async (tx) => {
      await relaxCommit(tx);
      const removed = await tx.delete(holds).where(eq(holds.id, id)).returning({ amount: holds.amountMicroUsd });
      if (!removed.length) return;
      await moveMoney(tx, { accountId: l.accountId, keyId: l.keyId, held: -removed[0]!.amount });
    });
  }

  private async renewAll(): Promise<void> {
    const expires = new Date(Date.now() + this.opts.ttlMs);
    for (const l of this.leases.values()) {
      const id = l.id;
      this.scheduleIdle(l); // belt and braces: an unused lease never stays out
      if (!id || !this.fresh(l)) continue; // an expired lease is re-checked by its next extension
      const r = await this.db.update(holds).set({ expiresAt: expires }).where(eq(holds.id, id)).returning({ id: holds.id }).catch(() => []);
      if (r.length && l.id === id) l.expiresAt = expires.getTime();
    }
  }

  /** Returns every idle lease now (shutdown, tests). */
  async releaseIdle(): Promise<void> {
    for (const l of this.leases.values()) {
      if (l.idle) {
        clearTimeout(l.idle);
        l.idle = null;
      }
      await this.serial(l, () => this.release(l));
    }
  }

  stop(): void {
    clearInterval(this.renewTimer);
  }
}
