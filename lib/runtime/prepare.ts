/** What every process does before using the database: migrations, then the config file or demo catalog. */
import { getDb, migrate, migrationsApplied } from "../../db/client";
import { applyConfig, applyConfigIfChanged } from "../config/apply";
import { demoCatalog } from "../config/demo-catalog";
import { loadConfigFile, resolveConfigPath } from "../config/load";
import { env } from "../env";
import { logger } from "../logger";
import { invalidateCatalog } from "../gateway/catalog";
import { startInvalidationListener } from "../invalidation";
import { startUpstreamHealth } from "../gateway/health";
import { installGuardrails } from "../gateway/guardrails/registry";
import { reloadStoredGuardrails } from "../gateway/guardrails/stored";
import { acquireInstance } from "./instance-lock";
import { processSingleton } from "../process-singleton";

/**
 * `onlyIfChanged`: skip the config when this very one was applied last (serverless mode and the
 * build step; decision 0044). A long-lived server applies it at every start, as before, so a
 * restart also undoes console edits of the entries the file names.
 */
export async function prepareDatabase(opts: { applyCatalog?: boolean; onlyIfChanged?: boolean } = {}): Promise<{ configPath: string | null }> {
  // Validate the config before touching the database: a bad file stops the start with one message.
  const configPath = resolveConfigPath(env().GATEWAY_CONFIG);
  const config = configPath ? loadConfigFile(configPath) : null;
  installGuardrails(config?.guardrails);
  // A start on a migrated database reads one count instead of running the migrator (a session
  // lock, the journal, every migration's hash).
  if (!(await migrationsApplied().catch(() => false))) await migrate();
  await reloadStoredGuardrails();
  if (opts.applyCatalog !== false) {
    const db = await getDb();
    const cfg = config ?? demoCatalog;
    const source = config ? "config" : "demo";
    if (opts.onlyIfChanged ?? env().serverless) {
      if (await applyConfigIfChanged(db, cfg, source)) await invalidateCatalog();
      else logger().debug({ source }, "the config is the one applied last: not applied again");
    } else {
      await applyConfig(db, cfg, source);
      await invalidateCatalog();
    }
  }
  return { configPath };
}

const prepared = processSingleton("gateway.prepared", () => ({ current: undefined as Promise<unknown> | undefined }));

/** Once per process: the custom server marks it done; a Next-only deployment does it on first request. */
export function ensurePrepared(): Promise<unknown> {
  const g = prepared();
  return (g.current ??= (async () => {
    // Next-only deployment on PGlite: claim the data folder so the CLI never opens it too.
    if (!env().DATABASE_URL) acquireInstance({ kind: "server" });
    const r = await prepareDatabase();
    await startInvalidationListener();
    await startUpstreamHealth();
    return r;
  })().catch((err) => {
    g.current = undefined;
    throw err;
  }));
}

export function markPrepared(p: Promise<unknown>): void {
  prepared().current = p;
}
