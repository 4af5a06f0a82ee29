/**
 * The admin CLI as an operator runs it (`npm run admin -- …`, a separate process) while the
 * server is running: on PGlite it goes through the server's local admin endpoint, on
 * PostgreSQL straight to the database. Also: a bad config file stops the start with one line.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp } from "./console-helpers";
import { startTestServer, type TestServer } from "./support/server";

const ROOT = path.resolve(import.meta.dirname, "..");

function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, script), ...args], {
      cwd: ROOT,
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("exit", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

describe("admin CLI against a running server", () => {
  let server: TestServer;
  const cli = (...args: string[]) => run("scripts/admin.ts", args, server.env);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.dispose());

  it("creates a user, credits them, makes a key that lists models, and reports the balance", async () => {
    const email = "dev@example.com";
    const created = await cli("user", "create", "--email", email, "--password", "a long password");
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/created user usr_/);
    const credit = await cli("credit", "--email", email, "--usd", "10");
    expect(credit.code, credit.stderr).toBe(0);
    const key = await cli("key", "create", "--email", email, "--name", "laptop");
    expect(key.code, key.stderr).toBe(0);
    const last = key.stdout.trim().split("\n").at(-1)!;
    expect(last).toMatch(/^sk-[A-Za-z0-9]{43}$/);
    const client = new OpenAI({ apiKey: last, baseURL: `${server.url}/v1` });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toContain("demo-chat");
    const balance = await cli("balance", "--email", email);
    expect(balance.stdout.trim().split("\n").at(-1)).toBe("10.00");
    const debit = await cli("debit", "--email", email, "--usd", "2.5", "--note", "correction");
    expect(debit.code, debit.stderr).toBe(0);
    expect((await cli("balance", "--email", email)).stdout.trim()).toBe("7.50");
    const revoke = await cli("key", "revoke", last);
    expect(revoke.code, revoke.stderr).toBe(0);
    await expect(client.models.list()).rejects.toMatchObject({ status: 401 });
  });

  it("credits and debits a team organisation by id, lists organisations, and names which one a command hit", async () => {
    const owner = await signUp(server);
    const team = await owner.json("/api/console/orgs", { method: "POST", body: { name: "CLI Team" } });
    expect(team.status).toBe(200);
    const teamId = team.body.org.id as string;
    const list = await cli("org", "list", "--email", owner.email);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines).toContainEqual(`${teamId}\tteam\t0.00 USD\t1 member\tCLI Team`);
    expect(lines.some((l) => /\tpersonal\t/.test(l))).toBe(true);

    const credit = await cli("credit", "--org", teamId, "--usd", "12.5", "--note", "team top-up by invoice");
    expect(credit.code, credit.stderr).toBe(0);
    expect(credit.stdout).toContain('credited 12.50 USD to organisation "CLI Team"; balance 12.50 USD');
    expect((await cli("balance", "--org", teamId)).stdout.trim()).toBe("12.50");
    // The owner's personal organisation is untouched, and the console shows the team's balance.
    expect((await cli("balance", "--email", owner.email)).stdout.trim()).toBe("0.00");
    expect((await owner.json("/api/console/me")).body.org).toMatchObject({ id: teamId });
    const debit = await cli("debit", "--org", teamId, "--usd", "2.5", "--note", "correction");
    expect(debit.stdout).toContain('debited 2.50 USD from organisation "CLI Team"; balance 10.00 USD');

    expect((await cli("credit", "--org", "acct_nope", "--usd", "1")).stderr).toMatch(/no organisation with id acct_nope/);
    const both = await cli("credit", "--org", teamId, "--email", owner.email, "--usd", "1");
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give --email or --org, not both/);
  });

  it.each([
    [["credit", "--email", "nobody@example.com", "--usd", "1"], 1, /no user with email nobody@example.com/],
    [["credit", "--email", "dev@example.com", "--usd", "-5"], 1, /must be positive/],
    [["credit", "--email", "dev@example.com", "--usd", "ten"], 1, /must be a USD amount/],
    [["credit", "--email", "dev@example.com"], 2, /--usd is required/],
    [["debit", "--email", "dev@example.com", "--usd", "1000", "--note", "x"], 1, /below zero/],
    [["debit", "--email", "dev@example.com", "--usd", "1"], 2, /--note is required/],
    [["user", "create", "--email", "dev@example.com"], 1, /already exists/],
    [["user", "create", "--email", "not-an-email"], 1, /not an email address/],
    [["user", "create", "--email", "short@example.com", "--password", "short"], 1, /at least 8 characters/],
    [["key", "create", "--email", "dev@example.com", "--models", "nope"], 1, /unknown model nope/],
    [["key", "create", "--email", "dev@example.com", "--expires", "yesterday"], 1, /ISO-8601/],
    [["key", "revoke", "key_doesnotexist"], 1, /no active key/],
    [["frobnicate"], 2, /unknown command/],
  ])("%j exits %i with one clear line", async (args, code, message) => {
    const r = await cli(...(args as string[]));
    expect(r.code).toBe(code);
    const lines = r.stderr.split("\n").filter((l) => l && !l.startsWith("npm warn"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});

describe("server start", () => {
  it("stops with one message naming the file and the bad field when the config is invalid", async () => {
    const dir = fs.mkdtempSync(path.join(ROOT, ".data-cfg-"));
    try {
      const file = path.join(dir, "gw.json");
      fs.writeFileSync(
        file,
        JSON.stringify({ upstreams: [{ id: "oa", protocol: "openai", baseUrl: "http://127.0.0.1:1/v1" }], models: [{ id: "m", kind: "text", upstream: "oa", price: { inputPerMTok: 1 } }] }),
      );
      const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dir, GATEWAY_CONFIG: file, PORT: "0", NODE_ENV: "production" };
      delete env.DATABASE_URL;
      const r = await run("scripts/start.ts", ["--no-rebuild"], env);
      expect(r.code).toBe(1);
      const errorLines = r.stderr.split("\n").filter((l) => l.startsWith("error:"));
      expect(errorLines).toEqual([`error: Invalid gateway config ${file}: models[0].price.outputPerMTok: required for text models`]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
