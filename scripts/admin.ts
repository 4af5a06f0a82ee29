/**
 * `npm run admin -- …`: the admin CLI (commands in lib/admin/commands.ts). On PostgreSQL it
 * talks to the database; on the embedded PGlite database it goes through the running server's
 * local admin endpoint, because PGlite belongs to one process (docs/decisions/0001).
 */
import fs from "node:fs";
import path from "node:path";
import { env } from "../lib/env";

async function viaServer(port: number, argv: string[]) {
  const secret = fs.readFileSync(path.join(env().DATA_DIR, "admin.secret"), "utf8").trim();
  const res = await fetch(`http://127.0.0.1:${port}/_internal/admin`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-admin-secret": secret },
    body: JSON.stringify({ argv }),
  });
  if (!res.ok) throw new Error(`the running server refused the admin command (HTTP ${res.status})`);
  return (await res.json()) as { exitCode: number; stdout: string[]; stderr: string[] };
}

async function direct(argv: string[], embedded: boolean) {
  const { acquireInstance } = await import("../lib/runtime/instance-lock");
  const release = embedded ? acquireInstance({ kind: "cli" }) : () => {};
  const { getDb, closeDb, migrate } = await import("../db/client");
  const { runAdminCommand } = await import("../lib/admin/commands");
  try {
    await migrate();
    return await runAdminCommand(await getDb(), argv);
  } finally {
    await closeDb();
    release();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const embedded = !env().DATABASE_URL;
  let result;
  if (embedded) {
    const { readInstance } = await import("../lib/runtime/instance-lock");
    const holder = readInstance();
    if (holder?.kind === "server") {
      if (!holder.port) {
        throw new Error(
          `the embedded database is held by a server without the admin endpoint or still starting (pid ${holder.pid}); ` +
            "try again in a moment, or use DATABASE_URL",
        );
      }
      result = await viaServer(holder.port, argv);
    } else {
      result = await direct(argv, true);
    }
  } else {
    result = await direct(argv, false);
  }
  for (const line of result.stdout) process.stdout.write(`${line}\n`);
  for (const line of result.stderr) process.stderr.write(`${line}\n`);
  process.exit(result.exitCode);
}

main().catch((err: Error) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
});
