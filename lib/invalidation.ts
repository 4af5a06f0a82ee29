/**
 * Cache invalidation across processes. A change (key revoked, catalog edited, account disabled)
 * is dispatched to this process's caches at once and, on PostgreSQL, sent with pg_notify so
 * every other instance drops its copy within milliseconds. PGlite has one process by design.
 *
 * Call notifyInvalidation after the change has committed, never inside its transaction:
 * another request could otherwise reload the old state and cache it.
 */
import { sql } from "drizzle-orm";
import { dbState } from "../db/client";
import { logger } from "./logger";
import { processSingleton } from "./process-singleton";

export type Invalidation =
  | { kind: "keys"; hashes?: string[] }
  | { kind: "accounts"; ids?: string[] }
  | { kind: "catalog" }
  /** The guardrails stored in Admin → Guardrails changed (lib/gateway/guardrails/stored.ts). */
  | { kind: "guardrails" }
  /** Text leases (lib/billing/text-lease.ts): hand back the unused part of an account's leases… */
  | { kind: "lease-claim"; accountId: string; claim: string; from: string }
  /** …and the answer of one instance to that claim. */
  | { kind: "lease-returned"; claim: string; from: string };

type Listener = (msg: Invalidation) => void;
const CHANNEL = "gateway_invalidate";
const registry = processSingleton("gateway.invalidation", (): { listeners: Set<Listener>; started?: Promise<void> } => ({ listeners: new Set() }));

export function onInvalidation(listener: Listener): () => void {
  registry().listeners.add(listener);
  return () => registry().listeners.delete(listener);
}

function dispatch(msg: Invalidation): void {
  for (const l of registry().listeners) {
    try {
      l(msg);
    } catch (err) {
      logger().error({ err }, "invalidation listener failed");
    }
  }
}

export async function notifyInvalidation(msg: Invalidation): Promise<void> {
  dispatch(msg);
  const s = await dbState();
  if (s.mode === "postgres") {
    await s.db.execute(sql`select pg_notify(${CHANNEL}, ${JSON.stringify(msg)})`).catch((err) => {
      logger().warn({ err }, "pg_notify failed; other instances catch up when their caches expire");
    });
  }
}

function dropEverything(): void {
  dispatch({ kind: "catalog" });
  dispatch({ kind: "guardrails" });
  dispatch({ kind: "keys" });
  dispatch({ kind: "accounts" });
}

/** Subscribes this process to other instances' changes (PostgreSQL only). Idempotent. */
export function startInvalidationListener(): Promise<void> {
  const reg = registry();
  reg.started ??= (async () => {
    const s = await dbState();
    if (!s.listen) return;
    logger().debug("listening for cache invalidations from other instances");
    await s.listen(
      CHANNEL,
      (payload) => {
        try {
          dispatch(JSON.parse(payload) as Invalidation);
        } catch {
          dropEverything();
        }
      },
      // Reconnected after the server dropped the connection: what was sent meanwhile is lost.
      dropEverything,
    );
  })();
  return reg.started;
}
