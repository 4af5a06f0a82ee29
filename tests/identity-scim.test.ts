/**
 * SCIM 2.0 through the real server, as a provisioning client following RFC 7644 drives it:
 * discovery, create, filter, pagination, replace, PATCH `active: false` (the member's key is
 * refused on the very next request and their console session ends), groups mapped to roles,
 * delete, the Error and ListResponse shapes, and tenancy (one organisation's token sees none
 * of another's users). The token comes from `npm run admin -- scim token create` (last line).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

const SCIM_JSON = "application/scim+json";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

let server: TestServer;
let owner: Session;
let acme: { id: string; token: string };
let globex: { id: string; token: string };

/** A minimal RFC 7644 client: bearer token, application/scim+json both ways. */
function client(token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${server.url}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: SCIM_JSON, ...(body !== undefined ? { "content-type": SCIM_JSON } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    return { status: r.status, type: r.headers.get("content-type"), location: r.headers.get("location"), body: text ? (JSON.parse(text) as any) : null };
  };
}

async function team(s: Session, name: string, domain: string): Promise<{ id: string; token: string }> {
  const created = await s.json("/api/console/orgs", { method: "POST", body: { name } });
  expect(created.status).toBe(200);
  const id = created.body.org.id as string;
  const d = await server.admin("sso", "domain", "add", "--org", id, "--domain", domain);
  expect(d.exitCode, d.stderr.join("\n")).toBe(0);
  const t = await server.admin("scim", "token", "create", "--org", name);
  expect(t.exitCode, t.stderr.join("\n")).toBe(0);
  const token = t.stdout.at(-1)!;
  expect(token).toMatch(/^scim_[A-Za-z0-9]{43}$/);
  server.secrets.add(token);
  return { id, token };
}

async function models(key: string): Promise<number> {
  return (await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status;
}

beforeAll(async () => {
  server = await startTestServer();
  await signUp(server); // the gateway admin
  owner = await signUp(server);
  acme = await team(owner, `Acme ${process.pid}`, "acme.test");
  globex = await team(owner, `Globex ${process.pid}`, "globex.test");
}, 180_000);

afterAll(async () => {
  await server?.dispose();
});

describe("SCIM 2.0", () => {
  it("answers discovery, and refuses a missing or wrong token with the Error schema", async () => {
    const scim = client(acme.token);
    const spc = await scim("GET", "/ServiceProviderConfig");
    expect(spc.status).toBe(200);
    expect(spc.type).toMatch(/^application\/scim\+json/);
    expect(spc.body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false } });
    for (const bad of ["", "scim_" + "x".repeat(43), "sk-not-a-scim-token"]) {
      const r = await client(bad)("GET", "/Users");
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ schemas: [ERROR], status: "401" });
    }
  });

  it("creates, finds by filter, pages, and deactivation stops the member's key on the very next request", async () => {
    const scim = client(acme.token);
    const dev = await signUp(server, { email: `dev-${process.pid}@acme.test` });
    const created = await scim("POST", "/Users", { schemas: [USER], userName: dev.email.toUpperCase(), externalId: "okta-1", name: { givenName: "Dee", familyName: "Veloper" }, emails: [{ value: dev.email, primary: true }], active: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.location).toBe(created.body.meta.location);
    expect(created.body).toMatchObject({ schemas: [USER], userName: dev.email, externalId: "okta-1", active: true, name: { givenName: "Dee" }, meta: { resourceType: "User" } });
    const id = created.body.id as string;

    const again = await scim("POST", "/Users", { schemas: [USER], userName: dev.email });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ schemas: [ERROR], scimType: "uniqueness" });
    const foreign = await scim("POST", "/Users", { schemas: [USER], userName: "someone@elsewhere.test" });
    expect(foreign.status).toBe(400);
    expect(foreign.body.scimType).toBe("invalidValue");

    const found = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${dev.email}"`)}`);
    expect(found.body).toMatchObject({ schemas: [LIST], totalResults: 1, startIndex: 1, itemsPerPage: 1 });
    expect(found.body.Resources[0].id).toBe(id);
    expect((await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "nobody@acme.test"')}`)).body.totalResults).toBe(0);
    expect((await scim("GET", `/Users?filter=${encodeURIComponent('name.familyName co "V"')}`)).body.scimType).toBe("invalidFilter");
    const other = await scim("POST", "/Users", { schemas: [USER], userName: `other-${process.pid}@acme.test` });
    expect(other.status).toBe(201);
    const page2 = await scim("GET", "/Users?startIndex=2&count=1");
    expect(page2.body).toMatchObject({ totalResults: 2, startIndex: 2, itemsPerPage: 1 });
    expect(page2.body.Resources[0].id).toBe(other.body.id);

    // The member works in the organisation with a key of their own.
    expect((await dev.json("/api/console/orgs/active", { method: "PUT", body: { accountId: acme.id } })).status).toBe(200);
    const key = (await dev.json("/api/console/keys", { method: "POST", body: { name: "dev", allowedModels: [] } })).body.key.key as string;
    server.secrets.add(key);
    expect(await models(key)).toBe(200);
    expect(await models(key)).toBe(200); // cached now: the deactivation must reach the cache

    const off = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: false }] });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.active).toBe(false);
    expect(await models(key)).toBe(401);
    expect((await dev.json("/api/console/me")).status).toBe(401);
    const [m] = await server.query<{ n: number }>("select count(*)::int as n from memberships where account_id = $1 and user_id = (select id from users where email = $2)", [acme.id, dev.email]);
    expect(m!.n).toBe(0);

    // Entra ID's form: no path, "True" as a string. Reactivated, the member is back (with new keys to make).
    const on = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "Replace", value: { active: "True", "name.givenName": "Dee-Dee" } }] });
    expect(on.body).toMatchObject({ active: true, name: { givenName: "Dee-Dee" } });
    expect(await models(key)).toBe(401);

    const put = await scim("PUT", `/Users/${id}`, { schemas: [USER], userName: dev.email, displayName: "Dee V", active: true });
    expect(put.body).toMatchObject({ displayName: "Dee V", active: true });
    expect(put.body.externalId).toBeUndefined();
    const rename = await scim("PUT", `/Users/${id}`, { schemas: [USER], userName: `renamed-${process.pid}@acme.test` });
    expect(rename.body.scimType).toBe("mutability");
    // A replace that omits `active` leaves it as it is: it must not reactivate a deprovisioned person.
    await scim("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: false }] });
    expect((await scim("PUT", `/Users/${id}`, { schemas: [USER], userName: dev.email, displayName: "Dee" })).body.active).toBe(false);
    expect((await server.query<{ n: number }>("select count(*)::int as n from memberships where account_id = $1 and user_id = (select id from users where email = $2)", [acme.id, dev.email]))[0]!.n).toBe(0);
  });

  it("maps groups to roles and re-derives a member's role when their groups change", async () => {
    const scim = client(acme.token);
    await server.query(`insert into org_identity (account_id, group_roles) values ($1, '{"Gateway Admins": "admin"}') on conflict (account_id) do update set group_roles = excluded.group_roles`, [acme.id]);
    const u = await scim("POST", "/Users", { schemas: [USER], userName: `ops-${process.pid}@acme.test` });
    const role = async () => (await server.query<{ role: string }>("select role from memberships where account_id = $1 and user_id = (select id from users where email = $2)", [acme.id, u.body.userName]))[0]?.role;
    expect(await role()).toBe("member");
    const g = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Gateway Admins", members: [{ value: u.body.id }] });
    expect(g.status, JSON.stringify(g.body)).toBe(201);
    expect(g.body.members).toEqual([expect.objectContaining({ value: u.body.id })]);
    expect(await role()).toBe("admin");
    expect((await scim("GET", `/Users/${u.body.id}`)).body.groups).toEqual([expect.objectContaining({ value: g.body.id, display: "Gateway Admins" })]);
    const found = await scim("GET", `/Groups?filter=${encodeURIComponent('displayName eq "Gateway Admins"')}`);
    expect(found.body.totalResults).toBe(1);
    const removed = await scim("PATCH", `/Groups/${g.body.id}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${u.body.id}"]` }] });
    expect(removed.body.members).toEqual([]);
    expect(await role()).toBe("member");
    await scim("PATCH", `/Groups/${g.body.id}`, { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: u.body.id }] }] });
    expect(await role()).toBe("admin");
    expect((await scim("DELETE", `/Groups/${g.body.id}`)).status).toBe(204);
    expect(await role()).toBe("member");
    expect((await scim("DELETE", `/Users/${u.body.id}`)).status).toBe(204);
    expect(await role()).toBeUndefined();
    expect((await scim("GET", `/Users/${u.body.id}`)).status).toBe(404);
  });

  it("keeps each organisation's directory to itself", async () => {
    const a = client(acme.token);
    const g = client(globex.token);
    const mine = await a("POST", "/Users", { schemas: [USER], userName: `tenant-${process.pid}@acme.test` });
    expect(mine.status).toBe(201);
    expect((await g("GET", `/Users/${mine.body.id}`)).status).toBe(404);
    expect((await g("PATCH", `/Users/${mine.body.id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: false }] })).status).toBe(404);
    expect((await g("DELETE", `/Users/${mine.body.id}`)).status).toBe(404);
    expect((await g("GET", `/Users?filter=${encodeURIComponent(`userName eq "${mine.body.userName}"`)}`)).body.totalResults).toBe(0);
    expect((await g("GET", "/Users")).body.totalResults).toBe(0);
    // Globex's directory cannot claim Acme's people, nor put Acme's users in its groups.
    expect((await g("POST", "/Users", { schemas: [USER], userName: mine.body.userName })).status).toBe(400);
    expect((await g("POST", "/Groups", { schemas: [GROUP], displayName: "x", members: [{ value: mine.body.id }] })).status).toBe(400);
    expect((await a("GET", `/Users/${mine.body.id}`)).body.active).toBe(true);
  });
});
