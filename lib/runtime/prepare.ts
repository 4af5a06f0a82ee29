/** What every process does before using the database: migrations, then the config file or demo catalog. */
import { getDb, migrate } from "../../db/client";
import { applyConfig } from "../config/apply";
import { demoCatalog } from "../config/demo-catalog";
import { loadConfigFile, resolveConfigPath } from "../config/load";
import { env } from "../env";
import { invalidateCatalog } from "../gateway/catalog";
import { startInvalidationListener } from "../invalidation";
import { startUpstreamHealth } from "../gateway/health";
import { acquireInstance } from "./instance-lock";
import { processSingleton } from "../process-singleton";

export async function prepareDatabase(opts: { applyCatalog?: boolean } = {}): Promise<{ configPath: string | null }> {
  // Validate the config before touching the database: a bad file stops the start with one message.
  const configPath = resolveConfigPath(env().GATEWAY_CONFIG);
  const config = configPath ? loadConfigFile(configPath) : null;
  await migrate();
  if (opts.applyCatalog !== false) {
    await applyConfig(await getDb(), config ?? demoCatalog, config ? "config" : "demo");
    await invalidateCatalog();
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
