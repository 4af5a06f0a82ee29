/**
 * "SSO required" (Organisation → Identity): password sign-in is refused to a member of such an
 * organisation, and to anyone whose email is in one of its verified domains. Gateway admins are
 * exempt (the instance's break-glass: `npm run admin` can still reach everyone else).
 */
import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";

export async function passwordSignInRefused(db: DbOrTx, user: { id: string; email: string; role: string }): Promise<boolean> {
  if (user.role === "admin") return false;
  const domain = user.email.slice(user.email.lastIndexOf("@") + 1).toLowerCase();
  const rows = await db.execute(sql`
    select 1 from org_identity i
    where i.sso_required
      and (exists (select 1 from memberships m where m.account_id = i.account_id and m.user_id = ${user.id})
        or exists (select 1 from sso_domains d where d.account_id = i.account_id and d.domain = ${domain}))
    limit 1`);
  return ((rows as unknown as { rows?: unknown[] }).rows ?? (rows as unknown as unknown[])).length > 0;
}
