/**
 * The guardrails stored in Admin → Guardrails: loaded at start, reloaded on this and every other
 * instance when one changes (the "guardrails" invalidation), and after a minute regardless, so a
 * lost notification heals. Each row is a config-file entry (validated again here with the same
 * schema) whose webhook secret is stored encrypted beside it.
 */
import { asc } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { storedGuardrails } from "../../../db/schema";
import { guardrailSchema, type GuardrailConfig } from "../../config/schema";
import { decryptSecret } from "../../crypto";
import { notifyInvalidation, onInvalidation } from "../../invalidation";
import { logger } from "../../logger";
import { processSingleton } from "../../process-singleton";
import { installStoredGuardrails } from "./registry";

type Row = typeof storedGuardrails.$inferSelect;

/** A row as the config entry it stands for (the secret decrypted). */
export function storedEntry(row: Pick<Row, "definition" | "secretEncrypted">): GuardrailConfig {
  const def = { ...row.definition, ...(row.secretEncrypted ? { secret: decryptSecret(row.secretEncrypted) } : {}) };
  return guardrailSchema.parse(def);
}

const loader = processSingleton("gateway.guardrails.stored", () => {
  const s: { running: Promise<void> | null; again: boolean } = { running: null, again: false };
  onInvalidation((msg) => {
    if (msg.kind === "guardrails") void reloadStoredGuardrails();
  });
  return s;
});

async function load(): Promise<void> {
  const rows = await (await getDb()).select().from(storedGuardrails).orderBy(asc(storedGuardrails.createdAt), asc(storedGuardrails.id));
  const list: GuardrailConfig[] = [];
  for (const row of rows) {
    try {
      list.push(storedEntry(row));
    } catch (err) {
      // Saved through the same schema, so only a changed ENCRYPTION_KEY gets here: fail loudly, skip it.
      logger().error({ guardrail: row.id, err: (err as Error).message }, "stored guardrail cannot be read; skipped");
    }
  }
  installStoredGuardrails(list, () => void reloadStoredGuardrails());
}

/** Loads the stored guardrails into this process (one load at a time; a change during a load loads again). */
export function reloadStoredGuardrails(): Promise<void> {
  const s = loader();
  if (s.running) {
    s.again = true;
    return s.running;
  }
  s.running = (async () => {
    do {
      s.again = false;
      await load().catch((err) => logger().error({ err }, "loading stored guardrails failed; the previous ones stay"));
    } while (s.again);
    s.running = null;
  })();
  return s.running;
}

/** After a committed change: this instance reloads now, the others on the notification. */
export async function guardrailsChanged(): Promise<void> {
  await reloadStoredGuardrails();
  await notifyInvalidation({ kind: "guardrails" });
}
