/**
 * SCIM Groups (RFC 7643 §4.2) of one organisation. A group's display name maps to an
 * organisation role (Organisation → Identity, "group → role"); a member's role is re-derived
 * whenever their groups change (lib/scim/membership.ts roleFor).
 */
import { randomUUID } from "node:crypto";
import { and, asc, count, eq, inArray, type SQL } from "drizzle-orm";
import type { DB, Tx } from "../../db/client";
import { scimGroupMembers, scimGroups, scimUsers } from "../../db/schema";
import { badValue, notFound, ScimError } from "./errors";
import { pageOf, parseFilter } from "./filter";
import { reapplyRoles } from "./membership";
import type { PatchOp } from "./patch";
import type { ScimContext } from "./users";

export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
type Row = typeof scimGroups.$inferSelect;
const ACTOR = "scim";

async function render(db: DB | Tx, base: string, g: Row) {
  const members = await db
    .select({ id: scimUsers.id, name: scimUsers.userName })
    .from(scimGroupMembers)
    .innerJoin(scimUsers, eq(scimUsers.id, scimGroupMembers.scimUserId))
    .where(eq(scimGroupMembers.groupId, g.id))
    .orderBy(asc(scimUsers.userName));
  return {
    schemas: [GROUP_SCHEMA],
    id: g.id,
    ...(g.externalId !== null ? { externalId: g.externalId } : {}),
    displayName: g.displayName,
    members: members.map((m) => ({ value: m.id, display: m.name, type: "User", $ref: `${base}/Users/${m.id}` })),
    meta: { resourceType: "Group", created: g.createdAt.toISOString(), lastModified: g.updatedAt.toISOString(), location: `${base}/Groups/${g.id}`, version: `W/"${g.version}"` },
  };
}

async function load(db: DB | Tx, accountId: string, id: string): Promise<Row> {
  const [g] = await db.select().from(scimGroups).where(and(eq(scimGroups.accountId, accountId), eq(scimGroups.id, id)));
  if (!g) throw notFound(`Group ${id}`);
  return g;
}

/** Member ids from `[{value}]`, each a User of this organisation (another's ids are unknown here). */
async function memberIds(tx: Tx, accountId: string, value: unknown): Promise<string[]> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > 10_000) throw badValue("members must be a list of {value: userId}.");
  const ids = value.map((m) => (m && typeof m === "object" ? (m as { value?: unknown }).value : undefined));
  if (ids.some((i) => typeof i !== "string")) throw badValue("Each member needs a value (the User's id).");
  const unique = [...new Set(ids as string[])];
  if (!unique.length) return [];
  const found = await tx.select({ id: scimUsers.id }).from(scimUsers).where(and(eq(scimUsers.accountId, accountId), inArray(scimUsers.id, unique)));
  if (found.length !== unique.length) throw new ScimError(400, "A member is not a User of this organisation.", "invalidValue");
  return unique;
}

function nameOf(body: Record<string, unknown>): string {
  const n = body.displayName;
  if (typeof n !== "string" || !n.trim() || n.length > 256) throw badValue("displayName is required (at most 256 characters).");
  return n.trim();
}

function checkSchema(body: Record<string, unknown>): void {
  if (!Array.isArray(body.schemas) || !body.schemas.includes(GROUP_SCHEMA)) throw new ScimError(400, `schemas must include ${GROUP_SCHEMA}.`, "invalidSyntax");
}

async function currentMembers(tx: Tx, groupId: string): Promise<string[]> {
  return (await tx.select({ id: scimGroupMembers.scimUserId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, groupId))).map((r) => r.id);
}

/** Sets the group's members to `next` and re-derives the roles of everyone who came or went. */
async function setMembers(c: ScimContext, tx: Tx, groupId: string, next: string[], renamed: boolean): Promise<void> {
  const before = await currentMembers(tx, groupId);
  const gone = before.filter((id) => !next.includes(id));
  const added = next.filter((id) => !before.includes(id));
  if (gone.length) await tx.delete(scimGroupMembers).where(and(eq(scimGroupMembers.groupId, groupId), inArray(scimGroupMembers.scimUserId, gone)));
  if (added.length) await tx.insert(scimGroupMembers).values(added.map((scimUserId) => ({ groupId, scimUserId })));
  const touched = renamed ? [...new Set([...before, ...next])] : [...gone, ...added];
  c.rolesChanged = (await reapplyRoles(tx, c.accountId, touched, ACTOR)) || c.rolesChanged;
}

export async function listGroups(c: ScimContext, q: URLSearchParams) {
  const f = parseFilter(q.get("filter"), ["displayname", "externalid", "id"]);
  const where: SQL[] = [eq(scimGroups.accountId, c.accountId)];
  if (f?.attribute === "displayname") where.push(eq(scimGroups.displayName, f.value));
  if (f?.attribute === "externalid") where.push(eq(scimGroups.externalId, f.value));
  if (f?.attribute === "id") where.push(eq(scimGroups.id, f.value));
  const { offset, count: n } = pageOf(q);
  const [{ total }] = (await c.db.select({ total: count() }).from(scimGroups).where(and(...where))) as [{ total: number }];
  const rows = n ? await c.db.select().from(scimGroups).where(and(...where)).orderBy(asc(scimGroups.createdAt), asc(scimGroups.id)).offset(offset).limit(n) : [];
  return { total, offset, resources: await Promise.all(rows.map((r) => render(c.db, c.base, r))) };
}

export async function getGroup(c: ScimContext, id: string) {
  return render(c.db, c.base, await load(c.db, c.accountId, id));
}

export async function createGroup(c: ScimContext, body: Record<string, unknown>) {
  checkSchema(body);
  const displayName = nameOf(body);
  const g = await c.db.transaction(async (tx) => {
    const [taken] = await tx.select({ id: scimGroups.id }).from(scimGroups).where(and(eq(scimGroups.accountId, c.accountId), eq(scimGroups.displayName, displayName)));
    if (taken) throw new ScimError(409, `A Group named ${displayName} already exists.`, "uniqueness");
    const members = await memberIds(tx, c.accountId, body.members);
    const externalId = typeof body.externalId === "string" ? body.externalId.slice(0, 1000) : null;
    const [row] = await tx.insert(scimGroups).values({ id: randomUUID(), accountId: c.accountId, displayName, externalId }).returning();
    await setMembers(c, tx, row!.id, members, false);
    return row!;
  });
  return render(c.db, c.base, g);
}

export async function replaceGroup(c: ScimContext, id: string, body: Record<string, unknown>) {
  checkSchema(body);
  const displayName = nameOf(body);
  const g = await c.db.transaction(async (tx) => {
    const cur = await load(tx, c.accountId, id);
    const members = await memberIds(tx, c.accountId, body.members);
    const externalId = typeof body.externalId === "string" ? body.externalId.slice(0, 1000) : null;
    const [row] = await tx.update(scimGroups).set({ displayName, externalId, version: cur.version + 1, updatedAt: new Date() }).where(eq(scimGroups.id, id)).returning();
    await setMembers(c, tx, id, members, cur.displayName !== displayName);
    return row!;
  });
  return render(c.db, c.base, g);
}

/** `members[value eq "id"]` → the id. */
const MEMBER_FILTER = /^members\[\s*value\s+eq\s+"([^"]+)"\s*\]$/i;

export async function patchGroup(c: ScimContext, id: string, ops: PatchOp[]) {
  const g = await c.db.transaction(async (tx) => {
    const cur = await load(tx, c.accountId, id);
    let members = await currentMembers(tx, id);
    let displayName = cur.displayName;
    let externalId = cur.externalId;
    for (const o of ops) {
      const path = o.path?.trim();
      const byFilter = path ? MEMBER_FILTER.exec(path) : null;
      if (byFilter && o.op === "remove") members = members.filter((m) => m !== byFilter[1]);
      else if (path?.toLowerCase() === "members") {
        const ids = o.op === "remove" && o.value === undefined ? members : await memberIds(tx, c.accountId, o.value);
        if (o.op === "add") members = [...new Set([...members, ...ids])];
        else if (o.op === "replace") members = ids;
        else members = members.filter((m) => !ids.includes(m));
      } else {
        // No path (an object of attributes) or a simple attribute: displayName, externalId, members.
        const pairs: [string, unknown][] = path ? [[path, o.value]] : Object.entries((o.value ?? {}) as Record<string, unknown>);
        for (const [k, v] of pairs) {
          const key = k.toLowerCase();
          if (key === "displayname") displayName = nameOf({ displayName: v });
          else if (key === "externalid") externalId = o.op === "remove" ? null : typeof v === "string" ? v.slice(0, 1000) : null;
          else if (key === "members") members = o.op === "add" ? [...new Set([...members, ...(await memberIds(tx, c.accountId, v))])] : await memberIds(tx, c.accountId, v);
          else throw new ScimError(400, `Unsupported path ${k}.`, "invalidPath");
        }
      }
    }
    if (displayName !== cur.displayName) {
      const [taken] = await tx.select({ id: scimGroups.id }).from(scimGroups).where(and(eq(scimGroups.accountId, c.accountId), eq(scimGroups.displayName, displayName)));
      if (taken) throw new ScimError(409, `A Group named ${displayName} already exists.`, "uniqueness");
    }
    const [row] = await tx.update(scimGroups).set({ displayName, externalId, version: cur.version + 1, updatedAt: new Date() }).where(eq(scimGroups.id, id)).returning();
    await setMembers(c, tx, id, members, displayName !== cur.displayName);
    return row!;
  });
  return render(c.db, c.base, g);
}

export async function deleteGroup(c: ScimContext, id: string): Promise<void> {
  await c.db.transaction(async (tx) => {
    await load(tx, c.accountId, id);
    const before = await currentMembers(tx, id);
    await tx.delete(scimGroups).where(and(eq(scimGroups.id, id), eq(scimGroups.accountId, c.accountId)));
    c.rolesChanged = (await reapplyRoles(tx, c.accountId, before, ACTOR)) || c.rolesChanged;
  });
}
