/**
 * Balance leases (docs/design.md, "Serving the public API"): instead of one hold row and one
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
 *
 * A lease is topped up before it runs short, on its serial chain and off the request's path, so
 * that while the account has money no request waits for the database (decision 0011).
 */
import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { holds } from "../../db/schema";
import { notifyInvalidation, onInvalidation } from "../invalidation";
import { newId, randomBase62 } from "../ids";
import { returnHold } from "./holds";
import { moveMoney, Refused, refusedOr } from "./lock-order";
import type { Hold, Refusal } from "./port";
import { relaxCommit, textSettlementsIdle } from "./text-settle-batch";

export interface LeaseOptions {
  /** Lease rows expire (and are swept) this long after their last extension or renewal. */
  ttlMs: number;
  /** A lease nobody uses for this long goes back to the account. */
  idleMs: number;
  /** An extension asks for this many times the request's hold, falling back to what is needed. */
  chunkFactor: number;
  /**
   * ...but beyond what the request needs it never takes more than this share of what the account
   * could still spend, so other instances and keys always find money left (decision 0010).
   */
  share?: number;
}

/**
 * 40 s, renewed every 10 s while requests use it: a crashed process's lease is back within a
 * minute (this expiry plus the 10-second hold sweep, lib/runtime/jobs.ts), as the README
 * promises for a background run whose instance stops (decision 0038). A live process whose
 * renewals stall that long loses the lease; its requests then settle against the balance only.
 */
const LEASE_TTL_MS = 40_000;
export const DEFAULT_LEASE: LeaseOptions = { ttlMs: LEASE_TTL_MS, idleMs: 500, chunkFactor: 8, share: 0.25 };

/** After a claim on an account, its leases take only what each request needs for this long. */
const TIGHT_MS = 5_000;
/** How long a refused request waits for other instances to hand back their unused leases. */
const CLAIM_WAIT_MS = 500;

/** After a top-up was refused or cut short (the account near its end), requests extend as they need for this long. */
const TOP_UP_BACKOFF_MS = 1_000;

/**
 * Asks every instance (this one included) to hand back the unused part of the account's leases
 * at once (the admin debit does, before it refuses).
 */
export async function askLeasesBack(accountId: string): Promise<void> {
  await notifyInvalidation({ kind: "lease-claim", accountId, claim: randomBase62(12), from: "" });
}

export type LeaseHold = Extract<Hold, { kind: "lease" }>;
export type LeaseGrant = { ok: true; hold: LeaseHold } | ({ ok: false } & Refusal);

const granted = (leaseId: string, amountMicroUsd: number): LeaseGrant => ({ ok: true, hold: { kind: "lease", leaseId, amountMicroUsd } });

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
  /** A top-up is queued or running. */
  topping: boolean;
  /** No top-up before this time (epoch ms). */
  topUpAfter: number;
}

export class LeaseManager {
  private readonly leases = new Map<string, Lease>();
  readonly instanceId = `inst_${randomBase62(12)}`;
  private renewTimer: NodeJS.Timeout;
  /** Accounts whose leases take only what is needed (epoch ms until when). */
  private readonly tight = new Map<string, number>();
  /** This instance's claims in progress, per account. */
  private readonly claims = new Map<string, Promise<"own" | "hopeless">>();
  /** Claims waiting for other instances' answers: claim id → instances still to answer. */
  private readonly waiting = new Map<string, { left: Set<string>; done: () => void }>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: DB,
    private readonly opts: LeaseOptions = DEFAULT_LEASE,
    /** Whether other processes can share the database (PostgreSQL): then claims ask them too. */
    private readonly shared = false,
  ) {
    this.renewTimer = setInterval(() => void this.renewAll(), Math.max(1000, opts.ttlMs / 4));
    this.renewTimer.unref();
    this.unsubscribe = onInvalidation((msg) => {
      if (msg.kind === "lease-claim" && msg.from !== this.instanceId) void this.answerClaim(msg.accountId, msg.claim);
      else if (msg.kind === "lease-returned") {
        const w = this.waiting.get(msg.claim);
        w?.left.delete(msg.from);
        if (w && !w.left.size) w.done();
      }
    });
  }

  private leaseFor(accountId: string, keyId: string | null): Lease {
    const k = `${accountId}|${keyId ?? ""}`;
    let l = this.leases.get(k);
    if (!l) {
      l = { accountId, keyId, id: null, amount: 0, inUse: 0, expiresAt: 0, chain: Promise.resolve(), idle: null, topping: false, topUpAfter: 0 };
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
    const fast = this.take(l, amt);
    if (fast) {
      this.topUpAhead(l, amt);
      return fast;
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

  /** Holds `amt` from the lease if it has room and cannot have been swept; else null. */
  private take(l: Lease, amt: number): LeaseGrant | null {
    return l.id && l.amount - l.inUse >= amt && this.fresh(l) ? this.hold(l, amt) : null;
  }

  /** Counts `amt` as in use on the lease and grants it (the caller has checked it is backed). */
  private hold(l: Lease, amt: number): LeaseGrant {
    l.inUse += amt;
    return granted(l.id!, amt);
  }

  private async grow(l: Lease, amt: number): Promise<LeaseGrant> {
    // An extension adds what was missing from the lease's slack when it started; a claim answered
    // meanwhile (answerClaim or this process's own claim, neither serialized with this chain) may
    // have handed that slack back, so the grant looks again instead of trusting the extension.
    // (A new lease row — none yet, or the old one swept — holds at least `amt` by itself: requests
    // still in flight on the old one settle against the balance, so it is granted as it is.)
    for (let round = 0; ; round++) {
      const grant = this.take(l, amt);
      if (grant) return grant;
      if (round === 3) return { ok: false, reason: "insufficient_balance", availableMicroUsd: Math.max(0, l.amount - l.inUse) };
      const before = l.id;
      const r = await this.extendOrClaim(l, amt);
      if (r !== true) return { ok: false, ...r };
      if (l.id !== before) return this.hold(l, amt);
    }
  }

  /**
   * Once a request leaves the lease under half a chunk, grows it back to a chunk in the
   * background, so that the request that would have found it short does not wait for the
   * extension's transaction (several round trips: every few hundred requests when answers cost
   * a small part of their hold, every few when a long conversation costs most of it). Nothing
   * changes for a tight account (only what requests need) or while a claim is running; a top-up
   * refused or cut to the account's share (the account near its end) is not tried again for a
   * second, so an account close to empty does not pay a transaction per request.
   */
  private topUpAhead(l: Lease, amt: number): void {
    const chunk = amt * this.opts.chunkFactor;
    if (l.topping || !this.short(l, chunk) || Date.now() < l.topUpAfter || this.claims.has(l.accountId)) return;
    l.topping = true;
    const backOff = () => void (l.topUpAfter = Date.now() + TOP_UP_BACKOFF_MS);
    void this.serial(l, async () => {
      // Looked at again: the chain may have grown, shrunk, released or replaced the lease meanwhile.
      if (!l.id || !this.fresh(l) || !this.short(l, chunk)) return;
      const room = l.amount - l.inUse;
      const moved = await this.extend(l, 0, chunk - room, amt);
      if (typeof moved !== "number" || moved < (chunk - room) / 2) backOff();
    })
      .catch(backOff)
      .finally(() => (l.topping = false));
  }

  /** Under half a chunk of room, and not held to what requests need: a top-up is due. */
  private short(l: Lease, chunk: number): boolean {
    return l.amount - l.inUse < chunk / 2 && !this.isTight(l.accountId);
  }

  /** Grows the lease by what `amt` lacks, taking back other leases' unused money if it must. */
  private async extendOrClaim(l: Lease, amt: number): Promise<true | Refusal> {
    let r = await this.tryExtend(l, amt);
    // A member's cap is theirs alone: no other lease's money would help.
    if (r !== true && r.reason === "member_cap_exceeded") return r;
    // 402 only if the balance cannot cover it: first take back the unused money of this
    // account's other leases, here and in every other instance, then try again (twice: a claim
    // joined while in progress may have been answered before this request needed it).
    for (let round = 0; r !== true && round < 2; round++) {
      const claimed = await this.claim(l, amt);
      if (claimed === "hopeless") break;
      r = await this.tryExtend(l, amt);
      if (claimed === "own" || (r !== true && r.reason === "member_cap_exceeded")) break;
    }
    return r;
  }

  /** Grows the lease so that `amt` fits: what is missing, plus a chunk unless the account is tight. */
  private async tryExtend(l: Lease, amt: number): Promise<true | Refusal> {
    const need = amt - (l.id ? Math.max(0, l.amount - l.inUse) : 0);
    const extra = this.isTight(l.accountId) ? 0 : Math.max(0, amt * this.opts.chunkFactor - need);
    let r = await this.extend(l, need, extra, amt);
    // A key limit or a member's cap may refuse the chunk but not what is needed.
    if (typeof r !== "number" && r.reason !== "insufficient_balance" && extra > 0) r = await this.extend(l, need, 0, amt);
    return typeof r === "number" ? true : r;
  }

  /**
   * Hands back the unused part of this account's other leases in this process and asks the other
   * instances holding leases of the account to do the same, waiting (briefly) for their answers.
   * Concurrent claims on one account share one round. "hopeless": even every lease of the
   * account given back could not cover `amt` (an empty account answers 402 without asking).
   */
  private claim(l: Lease, amt: number): Promise<"own" | "joined" | "hopeless"> {
    const accountId = l.accountId;
    const running = this.claims.get(accountId);
    if (running) return running.then((r) => (r === "hopeless" ? r : "joined"));
    const p = (async (): Promise<"own" | "hopeless"> => {
      // What could come back at most: the account's free money and every lease of it. When even
      // that is short (an empty account), refuse at once and ask nobody.
      const r = (await this.db.execute(sql`
        select (select balance_micro_usd - held_micro_usd from accounts where id = ${accountId}) as free,
               coalesce(sum(amount_micro_usd) filter (where instance_id is not null), 0) as leased,
               coalesce(array_agg(distinct instance_id) filter (where instance_id is not null and instance_id <> ${this.instanceId}), '{}') as others
          from holds where account_id = ${accountId}`)) as unknown as { rows: { free: string | number | null; leased: string | number; others: string[] }[] };
      const row = r.rows[0];
      if (!row || Number(row.free ?? 0) + Number(row.leased) < amt) return "hopeless";
      this.tight.set(accountId, Date.now() + TIGHT_MS);
      await Promise.all([...this.leases.values()].filter((o) => o !== l && o.accountId === accountId).map((o) => this.shrink(o).catch(() => undefined)));
      if (!this.shared || !row.others.length) return "own";
      const claim = randomBase62(12);
      let timer: NodeJS.Timeout | undefined;
      const answered = new Promise<void>((done) => {
        this.waiting.set(claim, { left: new Set(row.others), done });
        // An instance that died holds its lease until the sweeper returns it: do not wait for it.
        timer = setTimeout(done, CLAIM_WAIT_MS);
      });
      await notifyInvalidation({ kind: "lease-claim", accountId, claim, from: this.instanceId });
      await answered;
      clearTimeout(timer);
      this.waiting.delete(claim);
      return "own";
    })().finally(() => this.claims.delete(accountId));
    this.claims.set(accountId, p);
    return p;
  }

  /** Another instance (or an admin debit) wants this account's unused lease money back. */
  private async answerClaim(accountId: string, claim: string): Promise<void> {
    this.tight.set(accountId, Date.now() + TIGHT_MS);
    const mine = [...this.leases.values()].filter((l) => l.accountId === accountId);
    await Promise.all(mine.map((l) => this.shrink(l).catch(() => undefined)));
    await notifyInvalidation({ kind: "lease-returned", claim, from: this.instanceId });
  }

  /**
   * Gives back what no request of this process uses (lease row, account and key held), keeping
   * the lease for the requests in flight. Not serialized with the lease's extensions: it only
   * subtracts, and the statement acts only while the row still holds that much.
   */
  private async shrink(l: Lease): Promise<void> {
    const id = l.id;
    const unused = l.amount - l.inUse;
    if (!id || unused <= 0) return;
    l.amount -= unused;
    await this.db.transaction(async (tx) => {
      await relaxCommit(tx);
      const h = await tx
        .update(holds)
        .set({ amountMicroUsd: sql`${holds.amountMicroUsd} - ${unused}` })
        .where(and(eq(holds.id, id), sql`${holds.amountMicroUsd} >= ${unused}`))
        .returning({ id: holds.id });
      if (h.length) await moveMoney(tx, { accountId: l.accountId, keyId: l.keyId, held: -unused });
    });
  }

  /** A claim on the account was made or answered lately: its leases take only what requests need. */
  private isTight(accountId: string): boolean {
    return (this.tight.get(accountId) ?? 0) > Date.now();
  }

  /** Far enough from expiry (a lease is renewed every ttl/4) that the sweeper cannot have it. */
  private fresh(l: Lease): boolean {
    return Date.now() < l.expiresAt - this.opts.ttlMs / 8;
  }

  /** A request finished: its hold returns to the lease, its charge leaves it. */
  released(hold: LeaseHold, accountId: string, keyId: string | null, chargedMicroUsd: number): void {
    const l = this.leaseFor(accountId, keyId);
    l.inUse = Math.max(0, l.inUse - hold.amountMicroUsd);
    // Only the lease this request took (it may have been replaced since).
    if (l.id === hold.leaseId) l.amount = Math.max(0, l.amount - chargedMicroUsd);
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

  /**
   * Moves `need` more into the lease, plus up to `extra` within the account's share (lock-order.ts
   * `grow`): what it moved, or why not.
   */
  private async extend(l: Lease, need: number, extra: number, amt = need): Promise<number | Refusal> {
    const expires = new Date(Date.now() + this.opts.ttlMs);
    // Lock order hold row → account → key (lock-order.ts).
    const r = await refusedOr(() =>
      this.db.transaction(async (tx) => {
        let live = false;
        if (l.id) {
          // Locks the lease row first (its amount grows below, once the account said how much),
          // relaxing the commit in the same round trip (see relaxCommit).
          const h = (await tx.execute(sql`
            with relaxed as (select set_config('synchronous_commit', 'off', true))
            update holds set expires_at = ${expires.toISOString()}::timestamptz from relaxed where id = ${l.id} returning id`)) as unknown as { rows: unknown[] };
          live = h.rows.length > 0;
        } else await relaxCommit(tx);
        // A lease gone under us (swept) no longer has the slack `need` counted on: ask for `amt`.
        const require = live || !l.id ? need : amt;
        const moved = await moveMoney(tx, { accountId: l.accountId, keyId: l.keyId, require, grow: { extra, share: this.opts.share ?? DEFAULT_LEASE.share! } });
        if (!moved.ok) throw new Refused(moved);
        const x = moved.heldMicroUsd;
        if (live) {
          await tx.update(holds).set({ amountMicroUsd: sql`${holds.amountMicroUsd} + ${x}` }).where(eq(holds.id, l.id!));
          return [l.id!, x] as const;
        }
        // No lease yet, or it was swept or released under us: start a new one.
        const newIdValue = newId("hold");
        await tx.insert(holds).values({ id: newIdValue, accountId: l.accountId, keyId: l.keyId, amountMicroUsd: x, instanceId: this.instanceId, expiresAt: expires });
        return [newIdValue, x] as const;
      }),
    );
    if ("ok" in r) {
      const { ok: _, ...refusal } = r;
      return refusal;
    }
    const [id, x] = r;
    if (id !== l.id) {
      // A replaced lease: requests still in flight on the old one settle against the balance only.
      l.id = id;
      l.amount = x;
    } else l.amount += x;
    l.expiresAt = expires.getTime();
    return x;
  }

  /** Returns an idle lease's whole amount to the account (and key). */
  private async release(l: Lease): Promise<void> {
    if (!l.id || l.inUse > 0) return;
    // A reply leaves before its settlement commits (decision 0006): the lease row must carry
    // every queued charge before it goes, or that money comes back to the account as if unspent,
    // is lent again, and the late charge then falls on the balance alone (overspend).
    await textSettlementsIdle();
    if (!l.id || l.inUse > 0) return;
    const id = l.id;
    const amount = l.amount;
    l.id = null;
    l.amount = 0;
    try {
      await this.db.transaction(async (tx) => {
        await relaxCommit(tx);
        await returnHold(tx, id, l.accountId, l.keyId);
      });
    } catch (err) {
      // Still ours (this runs on the lease's serial chain): keep it, and try again when idle.
      l.id = id;
      l.amount = amount;
      this.scheduleIdle(l);
      throw err;
    }
  }

  private async renewAll(): Promise<void> {
    const expires = new Date(Date.now() + this.opts.ttlMs);
    for (const [accountId, until] of this.tight) if (until < Date.now()) this.tight.delete(accountId);
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
    this.unsubscribe();
  }
}
