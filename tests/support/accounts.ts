/** Test fixtures made through the admin CLI's commands (the server's local admin endpoint). */
import { randomBytes } from "node:crypto";
import type { TestServer } from "./server";

export interface TestAccount {
  email: string;
  key: string;
}

async function ok(server: TestServer, ...argv: string[]) {
  const r = await server.admin(...argv);
  if (r.exitCode !== 0) throw new Error(`admin ${argv.join(" ")} failed: ${r.stderr.join(" ")}`);
  return r;
}

/** A user with `usd` of balance and one key (options are `key create` flags). */
export async function createAccount(
  server: TestServer,
  opts: { usd?: number | string; email?: string; keyArgs?: string[] } = {},
): Promise<TestAccount> {
  const email = opts.email ?? `u${randomBytes(5).toString("hex")}@example.com`;
  await ok(server, "user", "create", "--email", email, "--password", "correct horse battery");
  if (opts.usd !== undefined && Number(opts.usd) > 0) await ok(server, "credit", "--email", email, "--usd", String(opts.usd));
  const k = await ok(server, "key", "create", "--email", email, ...(opts.keyArgs ?? []));
  server.secrets.add(k.stdout.at(-1)!);
  return { email, key: k.stdout.at(-1)! };
}

export async function createKey(server: TestServer, email: string, ...keyArgs: string[]): Promise<string> {
  const key = (await ok(server, "key", "create", "--email", email, ...keyArgs)).stdout.at(-1)!;
  server.secrets.add(key);
  return key;
}

export async function balanceUsd(server: TestServer, email: string): Promise<number> {
  return Number((await ok(server, "balance", "--email", email)).stdout.at(-1));
}

export async function adminOk(server: TestServer, ...argv: string[]) {
  return ok(server, ...argv);
}
