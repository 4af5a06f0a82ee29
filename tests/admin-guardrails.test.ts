/**
 * Admin → Guardrails (lib/console/admin-guardrails.ts, which the /api/admin/guardrails routes
 * mount in one line each; called here in-process against the servers' database, so that the
 * test needs no rebuild of the console), on two instances sharing one PostgreSQL database: an
 * entry added on one instance blocks on the other without a restart, an edit and a delete reach
 * it too; entries are checked by the config file's schema with errors naming the field; the
 * config file's entries are listed read-only and keep their ids; a webhook's secret is stored
 * encrypted and never shown or audited; every change is audited with before/after.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../lib/config/demo-catalog";
import { AppError } from "../lib/app-error";
import { signUp } from "./console-helpers";
import { createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

const HOOK_SECRET = "a-webhook-secret-of-some-length-7f3k";
let a: TestServer;
let b: TestServer;
let key: string;
let svc: typeof import("../lib/console/admin-guardrails");
let db: import("../db/client").DB;
let actor: { id: string; email: string };
type Answer = { status: number; body: any };

/** What the route answers: the result, or the AppError's code and field (the console's error shape). */
async function call(fn: () => Promise<unknown>): Promise<Answer> {
  try {
    return { status: 200, body: await fn() };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const status = { invalid_request: 400, conflict: 409, not_found: 404 }[err.code as string] ?? 500;
    return { status, body: { error: { code: err.code, message: err.message, field: err.opts.field } } };
  }
}

/** The admin API, as its routes map it. */
const admin = {
  json(path: string, init: { method?: string; body?: Record<string, unknown> } = {}): Promise<Answer> {
    const id = decodeURIComponent(path.split("/")[4] ?? "");
    const m = init.method ?? "GET";
    if (m === "GET") return call(async () => ({ items: await svc.listGuardrails(db) }));
    if (m === "POST") return call(() => svc.createGuardrail(db, actor, init.body!));
    if (m === "PUT") return call(() => svc.updateGuardrail(db, actor, id, init.body!));
    return call(() => svc.deleteGuardrail(db, actor, id));
  },
};

describe.skipIf(!usesPostgres())("Admin → Guardrails", () => {
  beforeAll(async () => {
    const config = { ...demoCatalog, guardrails: [{ id: "from-file", stage: "pre_request", type: "regex", pattern: "\\bfileword\\b", action: "block" }] };
    a = await startTestServer({ config });
    b = await startTestServer({ config, shareWith: a });
    const session = await signUp(a);
    actor = { id: (await session.json("/api/console/me")).body.user.id, email: session.email };
    ({ key } = await createAccount(a, { usd: 1 }));
    // This process writes to the servers' database as their console would (the same encryption key).
    Object.assign(process.env, { DATABASE_URL: a.databaseUrl, ENCRYPTION_KEY: a.env.ENCRYPTION_KEY, DATA_DIR: a.dataDir });
    svc = await import("../lib/console/admin-guardrails");
    db = await (await import("../db/client")).getDb();
    (await import("../lib/gateway/guardrails/registry")).installGuardrails(config.guardrails as never);
  }, 180_000);
  afterAll(async () => {
    await (await import("../db/client")).closeDb();
    await b?.dispose();
    await a?.dispose();
  });

  const chat = async (server: TestServer, content: string) => {
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-chat", messages: [{ role: "user", content }] }),
    });
    return { status: r.status, body: (await r.json()) as { error?: { code?: string; message?: string } } };
  };
  /** Until `check` holds on an instance (the change travels by pg_notify), at most 10 s. */
  const eventually = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await check()).toBe(true);
  };

  it("lists the config file's entries read-only and refuses to shadow their ids", async () => {
    const list = await admin.json("/api/admin/guardrails");
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([{ id: "from-file", source: "config", definition: expect.objectContaining({ pattern: "\\bfileword\\b" }), updatedAt: null }]);
    const shadow = await admin.json("/api/admin/guardrails", { method: "POST", body: { id: "from-file", stage: "pre_request", type: "pii" } });
    expect(shadow.status).toBe(409);
    expect(shadow.body.error).toMatchObject({ field: "id" });
    expect((await admin.json("/api/admin/guardrails/from-file", { method: "DELETE" })).status).toBe(409);
  });

  it("checks an entry with the config file's schema, naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ id: "r1", stage: "pre_request", type: "regex", action: "block" }, "pattern"],
      [{ id: "r1", stage: "pre_request", type: "regex", pattern: "(", action: "block" }, "pattern"],
      [{ id: "r1", stage: "before", type: "pii" }, "stage"],
      [{ id: "r1", stage: "pre_request", type: "pii", failPolicy: "maybe" }, "failPolicy"],
      [{ id: "r1", stage: "pre_request", type: "webhook", url: "http://127.0.0.1:9/x", secret: "short" }, "secret"],
      [{ id: "r1", stage: "pre_request", type: "pii", colour: "red" }, ""],
      [{ id: "Not A Slug", stage: "pre_request", type: "pii" }, "id"],
      // The checks across fields are the file's too.
      [{ id: "r1", stage: "pre_request", type: "pii", stream: "buffer" }, "stream"],
      [{ id: "r1", stage: "post_response", type: "pii", stream: "holdback" }, "holdback"],
    ];
    for (const [body, field] of cases) {
      const r = await admin.json("/api/admin/guardrails", { method: "POST", body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      if (field) expect(r.body.error.field, JSON.stringify(r.body)).toBe(field);
      if (field) expect(r.body.error.message).toMatch(new RegExp(`^${field}: `));
      else expect(r.body.error.message).toMatch(/colour/);
    }
  });

  it("an added guardrail blocks on the other instance without a restart; an edit and a delete reach it too", async () => {
    expect((await chat(b, "tell me about zebras")).status).toBe(200);
    const made = await admin.json("/api/admin/guardrails", { method: "POST", body: { id: "no-zebras", stage: "pre_request", type: "regex", pattern: "zebra", ignoreCase: true, action: "block" } });
    expect(made.status).toBe(200);
    // The change was saved by this process (in-process, as the console's route would), so both
    // servers learn of it the same way: by pg_notify, or by the stored list's reload.
    await eventually(async () => (await chat(a, "tell me about Zebras")).status === 400);
    const onA = await chat(a, "tell me about Zebras");
    expect(onA.body.error).toMatchObject({ code: "content_policy" });
    expect(onA.body.error!.message).toContain("no-zebras");
    await eventually(async () => (await chat(b, "tell me about zebras")).status === 400);
    // The file's entry still holds beside it.
    expect((await chat(b, "a fileword here")).status).toBe(400);

    const edited = await admin.json("/api/admin/guardrails/no-zebras", { method: "PUT", body: { stage: "pre_request", type: "regex", pattern: "zebra", ignoreCase: true, action: "redact" } });
    expect(edited.status).toBe(200);
    await eventually(async () => (await chat(b, "tell me about zebras")).status === 200);
    expect((await admin.json("/api/admin/guardrails/no-zebras", { method: "PUT", body: { id: "renamed", stage: "pre_request", type: "pii" } })).body.error).toMatchObject({ field: "id" });
    expect((await admin.json("/api/admin/guardrails/no-zebras", { method: "PUT", body: { stage: "pre_request", type: "regex", pattern: "[", action: "block" } })).body.error).toMatchObject({ field: "pattern" });

    const listed = (await admin.json("/api/admin/guardrails")).body.items as { id: string; source: string }[];
    expect(listed.map((g) => `${g.source}:${g.id}`)).toEqual(["config:from-file", "console:no-zebras"]);
    expect((await admin.json("/api/admin/guardrails", { method: "POST", body: { id: "no-zebras", stage: "pre_request", type: "pii" } })).status).toBe(409);

    // Off without deleting: `enabled: false`.
    await admin.json("/api/admin/guardrails/no-zebras", { method: "PUT", body: { stage: "pre_request", type: "regex", pattern: "zebra", ignoreCase: true, action: "block" } });
    await eventually(async () => (await chat(b, "zebra")).status === 400);
    expect((await admin.json("/api/admin/guardrails/no-zebras", { method: "DELETE" })).status).toBe(200);
    await eventually(async () => (await chat(b, "zebra")).status === 200);
    expect((await admin.json("/api/admin/guardrails/no-zebras", { method: "DELETE" })).status).toBe(404);
  });

  it("stores a webhook's secret encrypted, shows it as set, keeps it on an edit without one, and audits every change with before/after but never the secret", async () => {
    const hook = { id: "policy-hook", stage: "post_response", type: "webhook", url: "http://127.0.0.1:9/check", secret: HOOK_SECRET, failPolicy: "open", models: ["no-such-model"] };
    expect((await admin.json("/api/admin/guardrails", { method: "POST", body: hook })).status).toBe(200);
    const [row] = await a.query<{ definition: Record<string, unknown>; secret_encrypted: string }>("select definition, secret_encrypted from stored_guardrails where id = $1", ["policy-hook"]);
    expect(row!.definition).not.toHaveProperty("secret");
    expect(row!.secret_encrypted).not.toContain(HOOK_SECRET);
    const shown = ((await admin.json("/api/admin/guardrails")).body.items as { id: string; definition: Record<string, unknown> }[]).find((g) => g.id === "policy-hook")!;
    expect(shown.definition.secret).toBe("set");
    // An edit without the secret keeps it; the entry still validates (the secret is required by the schema).
    const { secret: _, ...noSecret } = hook;
    expect((await admin.json("/api/admin/guardrails/policy-hook", { method: "PUT", body: { ...noSecret, timeoutMs: 500 } })).status).toBe(200);
    const [kept] = await a.query<{ secret_encrypted: string }>("select secret_encrypted from stored_guardrails where id = $1", ["policy-hook"]);
    expect(kept!.secret_encrypted).toBeTruthy();
    expect((await admin.json("/api/admin/guardrails/policy-hook", { method: "PUT", body: { ...hook, secret: `${HOOK_SECRET}-rotated` } })).status).toBe(200);
    expect((await admin.json("/api/admin/guardrails/policy-hook", { method: "DELETE" })).status).toBe(200);

    const audit = await a.query<{ action: string; target_id: string; details: { before: Record<string, unknown> | null; after: Record<string, unknown> | null } }>(
      "select action, target_id, details from audit_log where target_type = 'guardrail' and target_id = 'policy-hook' order by id",
    );
    expect(audit.map((r) => r.action)).toEqual(["guardrail.create", "guardrail.update", "guardrail.update", "guardrail.delete"]);
    expect(audit[0]!.details).toMatchObject({ before: null, after: { type: "webhook", secret: "set" } });
    expect(audit[1]!.details).toEqual({ before: { timeoutMs: null }, after: { timeoutMs: 500 } });
    expect(audit[2]!.details).toMatchObject({ after: { secret: "replaced" } });
    expect(audit[3]!.details).toMatchObject({ before: { id: "policy-hook" }, after: null });
    expect(JSON.stringify(audit)).not.toContain(HOOK_SECRET);
    const zebra = await a.query<{ action: string }>("select action from audit_log where target_id = 'no-zebras' order by id");
    expect(zebra.map((r) => r.action)).toEqual(["guardrail.create", "guardrail.update", "guardrail.update", "guardrail.delete"]);
  });
});
