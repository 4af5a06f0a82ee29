/**
 * The SCIM 2.0 service (RFC 7644) at /scim/v2: Users, Groups and the discovery endpoints, for
 * one organisation per bearer token. Web Request in, Response out: server.ts and the Next mount
 * (app/scim/v2) both call it. Another organisation's ids answer 404, as unknown ones do.
 */
import { getDb, type DB } from "../../db/client";
import { bearerToken } from "../crypto";
import { env } from "../env";
import { notifyInvalidation } from "../invalidation";
import { logger } from "../logger";
import { ScimError } from "./errors";
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from "./groups";
import { patchOps } from "./patch";
import { scimTokenOrg } from "./tokens";
import { createScimUser, deleteUser, getUser, listUsers, patchUser, replaceUser, type ScimContext } from "./users";

export const SCIM_PREFIX = "/scim/v2";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const BODY_LIMIT = 1 << 20;

function reply(status: number, body?: unknown, headers: Record<string, string> = {}): Response {
  if (body === undefined) return new Response(null, { status, headers });
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/scim+json", "cache-control": "no-store", ...headers } });
}

async function jsonBody(req: Request): Promise<Record<string, unknown>> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/(scim\+)?json\b/i.test(type)) throw new ScimError(415, "Send the body as application/scim+json.", "invalidSyntax");
  const text = await req.text();
  if (text.length > BODY_LIMIT) throw new ScimError(413, "The body is larger than 1 MiB.", "tooMany");
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error();
    return v as Record<string, unknown>;
  } catch {
    throw new ScimError(400, "The body is not a JSON object.", "invalidSyntax");
  }
}

const list = (r: { total: number; offset: number; resources: unknown[] }) => ({ schemas: [LIST], totalResults: r.total, startIndex: r.offset + 1, itemsPerPage: r.resources.length, Resources: r.resources });

function serviceProviderConfig() {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
    documentationUri: `${env().publicBaseUrl}/docs/identity`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 200 },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [{ type: "oauthbearertoken", name: "Bearer token", description: "A SCIM token from Organisation → Identity or `npm run admin -- scim token create`.", primary: true }],
    meta: { resourceType: "ServiceProviderConfig", location: `${env().publicBaseUrl}${SCIM_PREFIX}/ServiceProviderConfig` },
  };
}

function resourceTypes() {
  const base = `${env().publicBaseUrl}${SCIM_PREFIX}`;
  const t = (id: string, schema: string) => ({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"], id, name: id, endpoint: `/${id}s`, schema, meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/${id}` } });
  const items = [t("User", "urn:ietf:params:scim:schemas:core:2.0:User"), t("Group", "urn:ietf:params:scim:schemas:core:2.0:Group")];
  return { schemas: [LIST], totalResults: items.length, startIndex: 1, itemsPerPage: items.length, Resources: items };
}

async function route(c: ScimContext, req: Request, parts: string[]): Promise<Response> {
  const [kind, id, extra] = parts;
  const m = req.method;
  if (extra !== undefined) throw new ScimError(404, "Unknown endpoint.");
  const q = new URL(req.url).searchParams;
  if (kind === "Users" || kind === "Groups") {
    const users = kind === "Users";
    if (id === undefined) {
      if (m === "GET") return reply(200, list(users ? await listUsers(c, q) : await listGroups(c, q)));
      if (m === "POST") {
        const body = await jsonBody(req);
        const r = users ? await createScimUser(c, body) : await createGroup(c, body);
        return reply(201, r, { location: r.meta.location });
      }
    } else {
      if (m === "GET") return reply(200, users ? await getUser(c, id) : await getGroup(c, id));
      if (m === "PUT") {
        const body = await jsonBody(req);
        return reply(200, users ? await replaceUser(c, id, body) : await replaceGroup(c, id, body));
      }
      if (m === "PATCH") {
        const ops = patchOps(await jsonBody(req));
        return reply(200, users ? await patchUser(c, id, ops) : await patchGroup(c, id, ops));
      }
      if (m === "DELETE") {
        await (users ? deleteUser(c, id) : deleteGroup(c, id));
        return reply(204);
      }
    }
    throw new ScimError(405, `${m} is not supported here.`);
  }
  if (m === "GET" && kind === "ServiceProviderConfig" && id === undefined) return reply(200, serviceProviderConfig());
  if (m === "GET" && kind === "ResourceTypes" && id === undefined) return reply(200, resourceTypes());
  throw new ScimError(404, "Unknown endpoint.");
}

export async function handleScim(req: Request, db?: DB): Promise<Response> {
  const url = new URL(req.url);
  if (!url.pathname.startsWith(SCIM_PREFIX)) return reply(404, new ScimError(404, "Unknown endpoint.").body());
  let parts: string[];
  try {
    parts = url.pathname.slice(SCIM_PREFIX.length).split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return reply(404, new ScimError(404, "Unknown endpoint.").body());
  }
  const database = db ?? (await getDb());
  const accountId = await scimTokenOrg(database, bearerToken(req.headers.get("authorization")));
  if (!accountId) return reply(401, new ScimError(401, "A valid SCIM bearer token is required.").body(), { "www-authenticate": 'Bearer realm="scim"' });
  const c: ScimContext = { db: database, accountId, base: `${env().publicBaseUrl}${SCIM_PREFIX}`, revoked: [], rolesChanged: false };
  let res: Response;
  try {
    res = await route(c, req, parts);
  } catch (err) {
    if (err instanceof ScimError) res = reply(err.status, err.body());
    else {
      logger().error({ err, path: url.pathname }, "SCIM request failed");
      res = reply(500, new ScimError(500, "Internal error.").body());
    }
  }
  // After commit, before the answer: the member's keys are refused on the very next request, on every instance.
  if (c.revoked.length) await notifyInvalidation({ kind: "keys", hashes: c.revoked });
  if (c.rolesChanged) await notifyInvalidation({ kind: "accounts", ids: [accountId] });
  return res;
}
