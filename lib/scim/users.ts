/**
 * SCIM Users (RFC 7643 §4.1) of one organisation: each is a person (a `users` row, found or
 * created by email) provisioned into the organisation. `userName` is the email, and must be in
 * one of the organisation's verified domains: a directory speaks only for its own people.
 */
import { randomUUID } from "node:crypto";
import { and, asc, count, eq, type SQL } from "drizzle-orm";
import type { DB, Tx } from "../../db/client";
import { scimGroupMembers, scimGroups, scimUsers } from "../../db/schema";
import { createUser, findUserByEmail, normalizeEmail } from "../auth/users";
import { emailDomain } from "../sso/settings";
import { domainsOf } from "../sso/settings";
import { badValue, notFound, ScimError } from "./errors";
import { pageOf, parseFilter } from "./filter";
import { endMember, ensureMember, roleFor } from "./membership";
import { applyPatch, type PatchOp } from "./patch";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
type Row = typeof scimUsers.$inferSelect;

export interface ScimContext {
  db: DB;
  accountId: string;
  /** The base URL of /scim/v2, for `meta.location`. */
  base: string;
  /** Key hashes revoked by this request, announced after it commits. */
  revoked: string[];
  /** A role changed: cached keys of the organisation reload. */
  rolesChanged: boolean;
}

const ACTOR = "scim";

async function render(db: DB | Tx, base: string, u: Row) {
  const groups = await db
    .select({ id: scimGroups.id, name: scimGroups.displayName })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(eq(scimGroupMembers.scimUserId, u.id));
  return {
    schemas: [USER_SCHEMA],
    id: u.id,
    ...(u.externalId !== null ? { externalId: u.externalId } : {}),
    userName: u.userName,
    name: { ...(u.givenName !== null ? { givenName: u.givenName } : {}), ...(u.familyName !== null ? { familyName: u.familyName } : {}) },
    ...(u.displayName !== null ? { displayName: u.displayName } : {}),
    emails: [{ value: u.userName, type: "work", primary: true }],
    active: u.active,
    groups: groups.map((g) => ({ value: g.id, display: g.name, $ref: `${base}/Groups/${g.id}` })),
    meta: { resourceType: "User", created: u.createdAt.toISOString(), lastModified: u.updatedAt.toISOString(), location: `${base}/Users/${u.id}`, version: `W/"${u.version}"` },
  };
}

/** The writable attributes of a User body (create and replace). */
interface UserFields {
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  /** Absent on a PUT: the current value stays (a replace that omits it must not reactivate anyone). */
  active: boolean | undefined;
}

const str = (v: unknown, name: string, max = 1000): string | null => {
  if (v === undefined || v === null || v === "") return null;
  if (typeof v !== "string" || v.length > max) throw badValue(`${name} must be a string of at most ${max} characters.`);
  return v;
};

/** SCIM clients send `active` as a boolean; Entra ID's PATCH sends "True"/"False". */
export function activeValue(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && /^(true|false)$/i.test(v)) return v.toLowerCase() === "true";
  throw badValue("active must be true or false.");
}

function fieldsOf(body: Record<string, unknown>): UserFields {
  const schemas = body.schemas;
  if (!Array.isArray(schemas) || !schemas.includes(USER_SCHEMA)) throw new ScimError(400, `schemas must include ${USER_SCHEMA}.`, "invalidSyntax");
  const userName = str(body.userName, "userName", 254);
  if (!userName) throw badValue("userName is required.");
  const name = (body.name && typeof body.name === "object" ? body.name : {}) as Record<string, unknown>;
  return {
    userName: normalizeEmail(userName),
    externalId: str(body.externalId, "externalId"),
    givenName: str(name.givenName, "name.givenName"),
    familyName: str(name.familyName, "name.familyName"),
    displayName: str(body.displayName, "displayName"),
    active: body.active === undefined || body.active === null ? undefined : activeValue(body.active),
  };
}

async function checkDomain(db: DB | Tx, accountId: string, userName: string): Promise<void> {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(userName)) throw badValue("userName must be the person's email address.");
  const domains = await domainsOf(db, accountId);
  if (!domains.includes(emailDomain(userName))) {
    throw badValue(domains.length ? `userName must be an address at ${domains.join(", ")} (the organisation's verified domains).` : "The organisation has no verified email domain yet: a gateway admin adds one (docs/identity.md).");
  }
}

async function load(db: DB | Tx, accountId: string, id: string): Promise<Row> {
  const [u] = await db.select().from(scimUsers).where(and(eq(scimUsers.accountId, accountId), eq(scimUsers.id, id)));
  if (!u) throw notFound(`User ${id}`);
  return u;
}

export async function listUsers(c: ScimContext, q: URLSearchParams) {
  const f = parseFilter(q.get("filter"), ["username", "externalid", "id", "emails.value", "emails.value"]);
  const where: SQL[] = [eq(scimUsers.accountId, c.accountId)];
  if (f?.attribute === "username" || f?.attribute === "emails.value") where.push(eq(scimUsers.userName, normalizeEmail(f.value)));
  if (f?.attribute === "externalid") where.push(eq(scimUsers.externalId, f.value));
  if (f?.attribute === "id") where.push(eq(scimUsers.id, f.value));
  const { offset, count: n } = pageOf(q);
  const [{ total }] = (await c.db.select({ total: count() }).from(scimUsers).where(and(...where))) as [{ total: number }];
  const rows = n ? await c.db.select().from(scimUsers).where(and(...where)).orderBy(asc(scimUsers.createdAt), asc(scimUsers.id)).offset(offset).limit(n) : [];
  return { total, offset, resources: await Promise.all(rows.map((r) => render(c.db, c.base, r))) };
}

export async function getUser(c: ScimContext, id: string) {
  return render(c.db, c.base, await load(c.db, c.accountId, id));
}

export async function createScimUser(c: ScimContext, body: Record<string, unknown>) {
  const f = fieldsOf(body);
  await checkDomain(c.db, c.accountId, f.userName);
  let user = await findUserByEmail(c.db, f.userName);
  if (!user) {
    const made = await createUser(c.db, { email: f.userName, name: f.displayName ?? ([f.givenName, f.familyName].filter(Boolean).join(" ") || null), via: "scim", actorUserId: null });
    user = made.ok ? made.value : await findUserByEmail(c.db, f.userName);
  }
  if (!user) throw new ScimError(500, "The user could not be created.");
  const person = user;
  const row = await c.db.transaction(async (tx) => {
    const [taken] = await tx.select({ id: scimUsers.id }).from(scimUsers).where(and(eq(scimUsers.accountId, c.accountId), eq(scimUsers.userId, person.id)));
    if (taken) throw new ScimError(409, `A User with userName ${f.userName} already exists.`, "uniqueness");
    const active = f.active ?? true;
    const [u] = await tx.insert(scimUsers).values({ id: randomUUID(), accountId: c.accountId, userId: person.id, ...f, active }).returning();
    if (active) c.rolesChanged = (await ensureMember(tx, c.accountId, person.id, await roleFor(tx, c.accountId, u!.id), ACTOR)) || c.rolesChanged;
    return u!;
  });
  return render(c.db, c.base, row);
}

/** Writes new field values and applies what `active` changing means to the membership. */
async function update(c: ScimContext, current: Row, fields: UserFields): Promise<Row> {
  const next = { ...fields, active: fields.active ?? current.active };
  if (next.userName !== current.userName) {
    // A different email is a different person here; a directory renaming someone deprovisions and re-provisions them.
    throw new ScimError(400, "userName cannot change; delete the User and create one with the new address.", "mutability");
  }
  return c.db.transaction(async (tx) => {
    const [u] = await tx
      .update(scimUsers)
      .set({ ...next, version: current.version + 1, updatedAt: new Date() })
      .where(and(eq(scimUsers.id, current.id), eq(scimUsers.accountId, c.accountId)))
      .returning();
    if (current.active && !next.active) c.revoked.push(...(await endMember(tx, c.accountId, current.userId, ACTOR, "deactivate")));
    if (!current.active && next.active) c.rolesChanged = (await ensureMember(tx, c.accountId, current.userId, await roleFor(tx, c.accountId, current.id), ACTOR)) || c.rolesChanged;
    return u!;
  });
}

export async function replaceUser(c: ScimContext, id: string, body: Record<string, unknown>) {
  const current = await load(c.db, c.accountId, id);
  return render(c.db, c.base, await update(c, current, fieldsOf(body)));
}

export async function patchUser(c: ScimContext, id: string, ops: PatchOp[]) {
  const current = await load(c.db, c.accountId, id);
  const doc = await render(c.db, c.base, current);
  const patched = applyPatch(doc as unknown as Record<string, unknown>, ops, ["groups", "id", "meta", "emails"]);
  return render(c.db, c.base, await update(c, current, fieldsOf({ ...patched, schemas: [USER_SCHEMA] })));
}

export async function deleteUser(c: ScimContext, id: string): Promise<void> {
  const current = await load(c.db, c.accountId, id);
  await c.db.transaction(async (tx) => {
    if (current.active) c.revoked.push(...(await endMember(tx, c.accountId, current.userId, ACTOR, "delete")));
    await tx.delete(scimUsers).where(and(eq(scimUsers.id, id), eq(scimUsers.accountId, c.accountId)));
  });
}
