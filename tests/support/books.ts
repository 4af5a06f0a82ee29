/**
 * An account's books once idle (PostgreSQL only): text requests draw on in-memory leases that
 * go back to the account shortly after the last request, so wait for nothing to be held.
 */
import type { TestServer } from "./server";

export interface Books {
  balance: number;
  held: number;
  ledger: number;
  holds: number;
}

export async function idleBooks(server: TestServer, email: string, timeoutMs = 5_000): Promise<Books> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [a] = await server.query<{ id: string; balance: string; held: string }>(
      "select a.id, a.balance_micro_usd as balance, a.held_micro_usd as held from accounts a join users u on u.account_id = a.id where u.email = $1",
      [email],
    );
    const [l] = await server.query<{ sum: string }>("select coalesce(sum(delta_micro_usd), 0) as sum from ledger_entries where account_id = $1", [a!.id]);
    const [h] = await server.query<{ n: number }>("select count(*)::int as n from holds where account_id = $1", [a!.id]);
    const books = { balance: Number(a!.balance), held: Number(a!.held), ledger: Number(l!.sum), holds: h!.n };
    if ((books.held === 0 && books.holds === 0) || Date.now() > deadline) return books;
    await new Promise((r) => setTimeout(r, 100));
  }
}
