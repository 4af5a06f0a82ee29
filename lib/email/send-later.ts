/**
 * Email work done after the answer has gone: a password reset must answer as fast for an address
 * with no account as for one with (decision 0040), so its lookup, link and SMTP round trip leave
 * the request path. Each job is registered in the process, and shutdown waits for them
 * (emailsIdle, server.ts) rather than dropping a link someone is waiting for. A crash loses it;
 * the person asks again.
 */
import { logger } from "../logger";
import { processSingleton } from "../process-singleton";

const pending = processSingleton("gateway.emailJobs", () => new Set<Promise<void>>());

/** Runs `job` on a later turn of the event loop; a failure is logged under `kind`, never thrown. */
export function sendLater(kind: string, job: () => Promise<unknown>): void {
  const p = new Promise<void>((resolve) => setImmediate(resolve))
    .then(job)
    .then(
      () => {},
      (err: unknown) => logger().error({ err, kind }, "queued email failed"),
    );
  pending().add(p);
  void p.finally(() => pending().delete(p));
}

/** Resolves once every queued job has finished (shutdown, tests). */
export async function emailsIdle(): Promise<void> {
  const s = pending();
  while (s.size) await Promise.all([...s]);
}
