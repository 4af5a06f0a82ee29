/**
 * The admin CLI's identity commands: SCIM tokens and an organisation's verified email domains
 * (a gateway admin's decision, decision 0062). Each prints its result; a token is the last line.
 */
import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { accounts, ssoDomains } from "../../db/schema";
import { recordAudit } from "../audit/record";
import { AppError } from "../app-error";
import { createScimToken } from "../scim/tokens";
import { normalizeDomain } from "../sso/settings";

export class IdentityCommandError extends Error {}

/** An organisation by id, or by its exact name when that names one team organisation. */
export async function orgByIdOrName(db: DB, ref: string): Promise<{ id: string; name: string }> {
  const rows = await db
    .select({ id: accounts.id, name: accounts.name })
    .from(accounts)
    .where(and(sql`(${accounts.id} = ${ref} or (${accounts.name} = ${ref} and not ${accounts.personal}))`, eq(accounts.disabled, false)));
  const exact = rows.find((r) => r.id === ref);
  if (exact) return exact;
  if (rows.length === 1) return rows[0]!;
  if (!rows.length) throw new IdentityCommandError(`no organisation with id or name "${ref}" (npm run admin -- org list)`);
  throw new IdentityCommandError(`${rows.length} organisations are named "${ref}": use the id (${rows.map((r) => r.id).join(", ")})`);
}

export async function runIdentityCommand(db: DB, two: string, values: Record<string, string | boolean | undefined>): Promise<string[] | null> {
  const org = async () => {
    if (typeof values.org !== "string" || !values.org.trim()) throw new IdentityCommandError("--org is required");
    return orgByIdOrName(db, values.org.trim());
  };
  const domain = () => {
    const d = typeof values.domain === "string" ? normalizeDomain(values.domain) : null;
    if (!d) throw new IdentityCommandError("--domain must be a domain name such as example.com");
    return d;
  };
  if (two === "scim token create") {
    const o = await org();
    try {
      const t = await createScimToken(db, o.id, { userId: null, actor: "cli" });
      return [`SCIM token ${t.id} for organisation "${o.name}" (${o.id}); base URL: <PUBLIC_BASE_URL>/scim/v2. Shown once:`, t.token];
    } catch (err) {
      if (err instanceof AppError) throw new IdentityCommandError(err.message);
      throw err;
    }
  }
  if (two === "sso domain add") {
    const o = await org();
    const d = domain();
    const [taken] = await db.select({ accountId: ssoDomains.accountId }).from(ssoDomains).where(eq(ssoDomains.domain, d));
    if (taken && taken.accountId !== o.id) throw new IdentityCommandError(`${d} already belongs to organisation ${taken.accountId}; remove it there first`);
    await db.insert(ssoDomains).values({ domain: d, accountId: o.id }).onConflictDoNothing();
    await recordAudit(db, { actorUserId: null, actor: "cli", action: "sso.domain_add", targetType: "account", targetId: o.id, details: { domain: d } });
    return [`${d} → ${o.name} (${o.id})`];
  }
  if (two === "sso domain remove") {
    const d = domain();
    const gone = await db.delete(ssoDomains).where(eq(ssoDomains.domain, d)).returning({ accountId: ssoDomains.accountId });
    if (!gone.length) throw new IdentityCommandError(`${d} is not a verified domain`);
    await recordAudit(db, { actorUserId: null, actor: "cli", action: "sso.domain_remove", targetType: "account", targetId: gone[0]!.accountId, details: { domain: d } });
    return [`removed ${d}`];
  }
  if (two === "sso domain list") {
    const o = values.org !== undefined ? await org() : null;
    const rows = await db
      .select({ domain: ssoDomains.domain, accountId: ssoDomains.accountId, name: accounts.name })
      .from(ssoDomains)
      .innerJoin(accounts, eq(accounts.id, ssoDomains.accountId))
      .where(o ? eq(ssoDomains.accountId, o.id) : undefined)
      .orderBy(ssoDomains.domain);
    return rows.length ? rows.map((r) => `${r.domain}\t${r.accountId}\t${r.name}`) : ["no verified domains"];
  }
  return null;
}
