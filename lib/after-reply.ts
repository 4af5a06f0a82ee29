/**
 * Work that goes on after the reply: a background response's run, a stored response's write, a
 * limit alert, a key's last-used stamp. A long-lived server just lets it run. A serverless
 * platform freezes the instance once its invocation has answered (timers and sockets stop until
 * the next request, which may never come) unless such work is handed to it: Vercel keeps the
 * instance running until every promise given to its request context's `waitUntil` settles —
 * what `waitUntil` of @vercel/functions and Next's `after()` do there, in three lines, without
 * the package. Elsewhere (no context) this only tracks the work, for `afterReplyIdle`.
 */
import { processSingleton, sharedGlobal } from "./process-singleton";

interface RequestContext {
  get?: () => { waitUntil?: (p: Promise<unknown>) => void } | undefined;
}

const pending = processSingleton("gateway.afterReply", () => new Set<Promise<unknown>>());

/** Registers work already started (its failures are the caller's to log) so the instance stays up for it. */
export function afterReply(work: Promise<unknown>): void {
  const p = work.catch(() => undefined);
  const set = pending();
  set.add(p);
  void p.finally(() => set.delete(p));
  sharedGlobal<RequestContext>("@vercel/request-context")?.get?.()?.waitUntil?.(p);
}

/** Resolves once every work item registered so far has finished (shutdown, tests). */
export async function afterReplyIdle(): Promise<void> {
  const set = pending();
  while (set.size) await Promise.all([...set]);
}
