/**
 * Admin → Guardrails: guardrails added, edited and deleted in the console, each a config-file
 * entry validated by the same schema (lib/config/schema.ts guardrailSchema; an error names the
 * field). The config file's entries are listed read-only and keep their ids. A webhook's secret
 * is stored encrypted, shown as "set", and kept when an edit leaves it empty. Every change is
 * audited with before/after and reaches every instance without a restart.
 */
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { storedGuardrails } from "../../db/schema";
import { guardrailSchema, type GuardrailConfig } from "../config/schema";
import { encryptSecret } from "../crypto";
import { fileGuardrails } from "../gateway/guardrails/registry";
import { guardrailsChanged, storedEntry } from "../gateway/guardrails/stored";
import type { Actor } from "./admin-users";
import { auditDiff, recordAudit } from "./audit";
import { AppError, fromZod } from "./errors";
import type { AdminGuardrailView } from "../views";

/** The body: one config-file entry (checked by guardrailSchema, not here). */
export const guardrailBodySchema = z.record(z.string(), z.unknown());

/** What the list and the audit show: never the secret. */
function shown(g: GuardrailConfig | Record<string, unknown>): Record<string, unknown> {
  return "secret" in g && g.secret ? { ...g, secret: "set" } : { ...g };
}

export async function listGuardrails(db: DB): Promise<AdminGuardrailView[]> {
  const file = fileGuardrails();
  const fileIds = new Set(file.map((g) => g.id));
  const rows = await db.select().from(storedGuardrails).orderBy(storedGuardrails.createdAt, storedGuardrails.id);
  return [
    ...file.map((g) => ({ id: g.id, source: "config" as const, definition: shown(g), updatedAt: null })),
    ...rows.filter((r) => !fileIds.has(r.id)).map((r) => ({ id: r.id, source: "console" as const, definition: shown({ ...r.definition, ...(r.secretEncrypted ? { secret: "set" } : {}) }), updatedAt: r.updatedAt.toISOString() })),
  ];
}

/** Validates an entry; a webhook without a new secret keeps `keptSecret`. */
function validate(body: Record<string, unknown>, keptSecret: string | null): GuardrailConfig {
  const input = { ...body };
  if ((input.secret === undefined || input.secret === "" || input.secret === "set") && keptSecret && input.type === "webhook") input.secret = keptSecret;
  const parsed = guardrailSchema.safeParse(input);
  if (!parsed.success) throw fromZod(parsed.error);
  return parsed.data;
}

function rowValues(g: GuardrailConfig) {
  const { secret, ...definition } = g as GuardrailConfig & { secret?: string };
  return { definition: definition as Record<string, unknown>, secretEncrypted: secret ? encryptSecret(secret) : null };
}

function fileOwned(id: string): void {
  if (fileGuardrails().some((g) => g.id === id)) throw new AppError("conflict", `The guardrail "${id}" is defined in the config file, which is authoritative for it: change it there.`, { field: "id" });
}

export async function createGuardrail(db: DB, actor: Actor, body: Record<string, unknown>) {
  const g = validate(body, null);
  fileOwned(g.id);
  const [taken] = await db.select({ id: storedGuardrails.id }).from(storedGuardrails).where(eq(storedGuardrails.id, g.id));
  if (taken) throw new AppError("conflict", `A guardrail with the id "${g.id}" exists: edit it instead.`, { field: "id" });
  await db.insert(storedGuardrails).values({ id: g.id, ...rowValues(g) });
  await recordAudit(db, { actorUserId: actor.id, actor: actor.email, action: "guardrail.create", targetType: "guardrail", targetId: g.id, details: { before: null, after: shown(g) } });
  await guardrailsChanged();
  return { id: g.id, definition: shown(g) };
}

export async function updateGuardrail(db: DB, actor: Actor, id: string, body: Record<string, unknown>) {
  fileOwned(id);
  const [row] = await db.select().from(storedGuardrails).where(eq(storedGuardrails.id, id));
  if (!row) throw new AppError("not_found", "No such guardrail.");
  if (body.id !== undefined && body.id !== id) throw new AppError("invalid_request", "id: a guardrail's id cannot change (delete it and add another).", { field: "id" });
  const before = storedEntry(row);
  const g = validate({ ...body, id }, before.type === "webhook" ? before.secret : null);
  await db.update(storedGuardrails).set({ ...rowValues(g), updatedAt: new Date() }).where(eq(storedGuardrails.id, id));
  // A changed secret shows as a change without showing either value.
  const secretOf = (x: GuardrailConfig) => (x.type === "webhook" ? x.secret : null);
  const changed = secretOf(before) !== secretOf(g);
  await recordAudit(db, {
    actorUserId: actor.id,
    actor: actor.email,
    action: "guardrail.update",
    targetType: "guardrail",
    targetId: id,
    details: auditDiff(shown(before), { ...shown(g), ...(changed ? { secret: "replaced" } : {}) }),
  });
  await guardrailsChanged();
  return { id, definition: shown(g) };
}

export async function deleteGuardrail(db: DB, actor: Actor, id: string) {
  fileOwned(id);
  const gone = await db.delete(storedGuardrails).where(eq(storedGuardrails.id, id)).returning();
  if (!gone.length) throw new AppError("not_found", "No such guardrail.");
  await recordAudit(db, { actorUserId: actor.id, actor: actor.email, action: "guardrail.delete", targetType: "guardrail", targetId: id, details: { before: shown(gone[0]!.definition), after: null } });
  await guardrailsChanged();
  return { id };
}
