/**
 * What this process knows of account balances, so that a text response can carry the balance
 * after its charge (x-gateway-balance-usd) without waiting for its settlement to commit
 * (docs/decisions/0006). Per account:
 *
 * - `base`: the balance a settlement of this process last read back from the database, when
 *   it read it;
 * - `pending`: the charges this process has issued since and not yet seen settle.
 *
 * The balance after a new charge is `base − pending` (this charge included), the same number
 * its ledger row will carry when nothing else touches the account; settlements are written in
 * the order they were issued (one serial batcher), so each read-back moves `base` past exactly
 * the charges it settled. The view answers only while `base` is fresh: a balance change of any
 * other kind made by this process (credit, refund, media charge) forgets it and keeps it
 * forgotten for MAX_AGE_MS (that change may commit a little later, inside its caller's
 * transaction), and a `base` older than MAX_AGE_MS is not trusted (another process may have
 * changed the balance). Meanwhile each response waits for its own settlement and reads the
 * balance back exactly, as every response did before the view.
 */

import { processSingleton } from "../process-singleton";

const MAX_AGE_MS = 1_000;
const MAX_ACCOUNTS = 10_000;

interface Entry {
  base: number | null;
  at: number;
  pending: number;
  /** Read-backs before this time do not set `base` (a change of another kind may not have committed). */
  trustAfter: number;
}

export class BalanceView {
  private readonly accounts = new Map<string, Entry>();

  constructor(private readonly maxAgeMs = MAX_AGE_MS) {}

  /** A charge about to be settled. Returns the balance after it, or null when unknown. */
  charge(accountId: string, amountMicroUsd: number, now = Date.now()): number | null {
    const e = this.entry(accountId);
    e.pending += amountMicroUsd;
    return e.base !== null && now - e.at <= this.maxAgeMs ? e.base - e.pending : null;
  }

  /**
   * A charge issued with `charge` has settled (in issue order): `balanceAfter` is the balance
   * the database reported right after it, or null when its settlement failed.
   */
  settled(accountId: string, issuedMicroUsd: number, balanceAfter: number | null, now = Date.now()): void {
    const e = this.entry(accountId);
    e.pending = Math.max(0, e.pending - issuedMicroUsd);
    if (balanceAfter === null) e.base = null;
    else if (now >= e.trustAfter) {
      e.base = balanceAfter;
      e.at = now;
    }
  }

  /** The balance changes some other way: answers for this account wait for the database for a while. */
  forget(accountId: string, now = Date.now()): void {
    const e = this.entry(accountId);
    e.base = null;
    e.trustAfter = now + this.maxAgeMs;
  }

  private entry(accountId: string): Entry {
    let e = this.accounts.get(accountId);
    if (!e) {
      if (this.accounts.size >= MAX_ACCOUNTS) this.prune();
      e = { base: null, at: 0, pending: 0, trustAfter: 0 };
      this.accounts.set(accountId, e);
    }
    return e;
  }

  /** Drops accounts with nothing in flight (they start again from the database). */
  private prune(): void {
    const now = Date.now();
    for (const [id, e] of this.accounts) if (e.pending === 0 && now >= e.trustAfter) this.accounts.delete(id);
  }
}

/** The process-wide view (one for both module copies of the custom server and Next). */
export const balanceView = processSingleton("gateway.balanceView", () => new BalanceView());
