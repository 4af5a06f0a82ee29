/** The models an account may use, for the key allow-list picker and the Usage filters. */
import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { accounts, models, upstreams } from "../../db/schema";
import type { AvailableModel } from "../views";
export type { AvailableModel };

export async function availableModels(db: DbOrTx, accountId: string): Promise<AvailableModel[]> {
  const [acct] = await db.select({ allowed: accounts.allowedModels }).from(accounts).where(eq(accounts.id, accountId));
  const rows = await db
    .select({ id: models.modelId, kind: models.kind, ownedBy: models.ownedBy, price: models.price })
    .from(models)
    .innerJoin(upstreams, eq(upstreams.id, models.upstreamId))
    .where(and(eq(models.enabled, true), eq(upstreams.enabled, true)))
    .orderBy(asc(models.modelId), asc(models.priority));
  const seen = new Set<string>();
  const out: AvailableModel[] = [];
  for (const r of rows) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    if (acct?.allowed && !acct.allowed.includes(r.id)) continue;
    out.push(r);
  }
  return out;
}
