/** Admin: model aliases (names and wildcard patterns → ordered target models). Audited; the catalog reloads on every instance. */
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { modelAliases, models } from "../../db/schema";
import { aliasIdSchema } from "../config/schema";
import { invalidateCatalog } from "../gateway/catalog";
import type { Actor } from "./admin-users";
import { auditDiff, recordAudit } from "./audit";
import { AppError } from "./errors";
import type { AdminAliasView } from "../views";

export async function listAliases(db: DB): Promise<AdminAliasView[]> {
  const rows = await db.select().from(modelAliases).orderBy(asc(modelAliases.id));
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() }));
}

export const saveAliasSchema = z.object({
  id: aliasIdSchema,
  targets: z.array(z.string().min(1).max(128)).min(1, "Name at least one target model.").max(16),
  contextFallback: z.boolean().optional(),
  enabled: z.boolean().optional(),
});

/** Creates or replaces an alias; targets must be existing model ids of one kind. */
export async function saveAlias(db: DB, actor: Actor, body: z.infer<typeof saveAliasSchema>) {
  const rows = await db.selectDistinct({ id: models.modelId, kind: models.kind }).from(models);
  const kinds = new Map(rows.map((r) => [r.id, r.kind]));
  if (kinds.has(body.id)) throw new AppError("invalid_request", `"${body.id}" is a model id; an alias needs a name of its own.`, { field: "id" });
  const unknown = body.targets.filter((t) => !kinds.has(t));
  if (unknown.length) throw new AppError("invalid_request", `No model with id ${unknown.map((t) => `"${t}"`).join(", ")} (targets are model ids).`, { field: "targets" });
  if (new Set(body.targets.map((t) => kinds.get(t))).size > 1) throw new AppError("invalid_request", "Targets must share one kind.", { field: "targets" });
  if (kinds.get(body.targets[0]!) === "embedding" && body.targets.length > 1)
    throw new AppError("invalid_request", "An embedding alias names one target: vectors of different models never mix.", { field: "targets" });
  const values = { targets: body.targets, contextFallback: body.contextFallback ?? false, enabled: body.enabled ?? true, source: "console" as const, updatedAt: new Date() };
  const [old] = await db.select({ targets: modelAliases.targets, contextFallback: modelAliases.contextFallback, enabled: modelAliases.enabled }).from(modelAliases).where(eq(modelAliases.id, body.id));
  await db.insert(modelAliases).values({ id: body.id, ...values }).onConflictDoUpdate({ target: modelAliases.id, set: values });
  const after = { targets: values.targets, contextFallback: values.contextFallback, enabled: values.enabled };
  await recordAudit(db, { actorUserId: actor.id, actor: actor.email, action: "alias.save", targetType: "alias", targetId: body.id, details: { ...values, ...(old ? auditDiff(old, after) : { before: null, after }) } });
  await invalidateCatalog();
  return { id: body.id };
}

export async function deleteAlias(db: DB, actor: Actor, id: string) {
  const gone = await db.delete(modelAliases).where(eq(modelAliases.id, id)).returning({ targets: modelAliases.targets, contextFallback: modelAliases.contextFallback, enabled: modelAliases.enabled });
  if (!gone.length) throw new AppError("not_found", "No such alias.");
  await recordAudit(db, { actorUserId: actor.id, actor: actor.email, action: "alias.delete", targetType: "alias", targetId: id, details: { before: gone[0], after: null } });
  await invalidateCatalog();
  return { id };
}
