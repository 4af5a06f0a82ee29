/**
 * Request-log rows older than REQUEST_LOG_RETENTION_DAYS are deleted (docs/configuration.md promises it).
 *
 * Rows are walked from the oldest id (bigserial: insertion order, which is time order to within
 * the group commit's few milliseconds), so a table with nothing to delete costs one index probe
 * and a large backlog goes in short batches that never hold locks for long.
 */
import { sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { env } from "../env";

export async function deleteExpiredRequestLogs(db: DB, now = Date.now(), batch = 5000): Promise<number> {
  const cutoff = new Date(now - env().REQUEST_LOG_RETENTION_DAYS * 86_400_000);
  let total = 0;
  for (;;) {
    const r = (await db.execute(sql`
      with oldest as (select id from request_logs order by id limit ${batch}),
           gone as (delete from request_logs where id in (select id from oldest) and created_at < ${cutoff} returning 1)
      select count(*)::int as n from gone`)) as unknown as { rows: { n: number }[] };
    const n = Number(r.rows[0]?.n ?? 0);
    total += n;
    if (n < batch) return total;
  }
}
