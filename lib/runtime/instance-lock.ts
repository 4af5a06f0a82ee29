/**
 * PGlite belongs to one process. The process that opens it records itself in
 * DATA_DIR/instance.json (created exclusively); the admin CLI reads that file to reach a running
 * server's admin endpoint instead of opening the database a second time.
 */
import fs from "node:fs";
import path from "node:path";
import { env } from "../env";

export interface InstanceInfo {
  pid: number;
  kind: "server" | "cli";
  /** The server's HTTP port, for the CLI's admin endpoint. */
  port?: number;
  startedAt: string;
}

export function instanceFile(): string {
  return path.join(env().DATA_DIR, "instance.json");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The live holder of the data folder, or null (a stale file from a crashed process is removed). */
export function readInstance(): InstanceInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(instanceFile(), "utf8")) as InstanceInfo;
    if (info.pid !== process.pid && alive(info.pid)) return info;
    if (info.pid === process.pid) return info;
    fs.rmSync(instanceFile(), { force: true });
    return null;
  } catch {
    return null;
  }
}

export class DataDirBusy extends Error {}

export function acquireInstance(info: Omit<InstanceInfo, "pid" | "startedAt">): () => void {
  fs.mkdirSync(env().DATA_DIR, { recursive: true });
  const body: InstanceInfo = { pid: process.pid, startedAt: new Date().toISOString(), ...info };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(instanceFile(), JSON.stringify(body), { flag: "wx", mode: 0o600 });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          const cur = JSON.parse(fs.readFileSync(instanceFile(), "utf8")) as InstanceInfo;
          if (cur.pid === process.pid) fs.rmSync(instanceFile(), { force: true });
        } catch {}
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = readInstance(); // removes a stale file
      if (holder) {
        throw new DataDirBusy(
          `${env().DATA_DIR} is in use by ${holder.kind === "server" ? "a running server" : "an admin command"} (pid ${holder.pid})`,
        );
      }
    }
  }
  throw new DataDirBusy(`cannot lock ${env().DATA_DIR}`);
}

/** Updates the recorded info (the port is known only once the server listens). */
export function updateInstance(patch: Partial<InstanceInfo>): void {
  const cur = JSON.parse(fs.readFileSync(instanceFile(), "utf8")) as InstanceInfo;
  fs.writeFileSync(instanceFile(), JSON.stringify({ ...cur, ...patch }), { mode: 0o600 });
}
