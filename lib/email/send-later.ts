/**
 * Email work done after the answer has gone: a password reset must answer as fast for an address
 * with no account as for one with (decision 0040), so its lookup, link and SMTP round trip leave
 * the request path. Each job is registered as work after the reply (lib/after-reply.ts), so a
 * serverless platform keeps the instance up for it and shutdown waits for it rather than dropping
 * a link someone is waiting for. A crash loses it; the person asks again.
 */
import { afterReply, afterReplyIdle } from "../after-reply";
import { logger } from "../logger";

/** Runs `job` on a later turn of the event loop; a failure is logged under `kind`, never thrown. */
export function sendLater(kind: string, job: () => Promise<unknown>): void {
  afterReply(
    new Promise<void>((resolve) => setImmediate(resolve))
      .then(job)
      .then(
        () => {},
        (err: unknown) => logger().error({ err, kind }, "queued email failed"),
      ),
  );
}

/** Resolves once every queued job (and any other work after a reply) has finished: shutdown, tests. */
export const emailsIdle = afterReplyIdle;
