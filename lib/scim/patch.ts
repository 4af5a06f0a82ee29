/**
 * PATCH (RFC 7644 §3.5.2) on a resource's simple attributes: `add`/`replace` with a path
 * (`active`, `name.givenName`) or without one (an object of attributes), and `remove` of an
 * optional attribute. Attribute names are case-insensitive. Multi-valued members of Groups are
 * handled by the Groups code; anything else is refused, naming the path.
 */
import { ScimError } from "./errors";

export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

export interface PatchOp {
  op: "add" | "replace" | "remove";
  path?: string;
  value?: unknown;
}

export function patchOps(body: Record<string, unknown>): PatchOp[] {
  if (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_SCHEMA)) throw new ScimError(400, `schemas must include ${PATCH_SCHEMA}.`, "invalidSyntax");
  const ops = body.Operations;
  if (!Array.isArray(ops) || !ops.length || ops.length > 1000) throw new ScimError(400, "Operations must list 1 to 1000 operations.", "invalidSyntax");
  return ops.map((o: Record<string, unknown>) => {
    const op = typeof o?.op === "string" ? o.op.toLowerCase() : "";
    if (op !== "add" && op !== "replace" && op !== "remove") throw new ScimError(400, `Unknown op ${String(o?.op)}.`, "invalidSyntax");
    if (o.path !== undefined && typeof o.path !== "string") throw new ScimError(400, "path must be a string.", "invalidPath");
    return { op, path: o.path as string | undefined, value: o.value };
  });
}

/** Sets `path` (dotted, case-insensitive against the keys present) in `doc`. */
function set(doc: Record<string, unknown>, path: string, value: unknown, readOnly: string[]): void {
  const parts = path.split(".");
  const top = parts[0]!.toLowerCase();
  if (readOnly.includes(top)) throw new ScimError(400, `${path} cannot be changed.`, "mutability");
  const known: Record<string, string> = { active: "active", username: "userName", displayname: "displayName", externalid: "externalId", name: "name", givenname: "givenName", familyname: "familyName" };
  const key = known[top];
  if (!key) throw new ScimError(400, `Unsupported path ${path}.`, "invalidPath");
  if (parts.length === 1) {
    doc[key] = value;
    return;
  }
  if (key !== "name" || parts.length !== 2) throw new ScimError(400, `Unsupported path ${path}.`, "invalidPath");
  const sub = known[parts[1]!.toLowerCase()];
  if (sub !== "givenName" && sub !== "familyName") throw new ScimError(400, `Unsupported path ${path}.`, "invalidPath");
  doc.name = { ...((doc.name as object) ?? {}), [sub]: value };
}

/** A copy of `doc` with `ops` applied. `emails` paths are accepted only with the userName's value (it is the email). */
export function applyPatch(doc: Record<string, unknown>, ops: PatchOp[], readOnly: string[]): Record<string, unknown> {
  const out = structuredClone(doc);
  for (const o of ops) {
    const pairs: [string, unknown][] =
      o.path !== undefined
        ? [[o.path, o.op === "remove" ? null : o.value]]
        : o.value && typeof o.value === "object" && !Array.isArray(o.value)
          ? Object.entries(o.value as Record<string, unknown>)
          : (() => {
              throw new ScimError(400, "An operation without a path needs an object value.", "invalidSyntax");
            })();
    for (const [path, value] of pairs) {
      if (/^emails/i.test(path)) {
        const v = Array.isArray(value) ? (value[0] as { value?: unknown } | undefined)?.value : value;
        if (typeof v === "string" && v.toLowerCase() === String(out.userName).toLowerCase()) continue;
        throw new ScimError(400, "The email is the userName here and cannot change on its own.", "mutability");
      }
      if (path.toLowerCase() === "name" && value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) set(out, `name.${k}`, v, readOnly);
        continue;
      }
      if (o.op === "remove" && /^(active|username)$/i.test(path)) throw new ScimError(400, `${path} is required and cannot be removed.`, "mutability");
      set(out, path, value, readOnly);
    }
  }
  return out;
}
