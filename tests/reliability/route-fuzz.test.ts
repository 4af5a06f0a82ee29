/**
 * Hostile input on every route, enumerated from the code (app/api/**\/route.ts and the gateway's
 * route table) so a new route is fuzzed without anyone remembering to add it: odd path
 * segments (NUL, lone surrogates, malformed %-escapes, 5,000 characters), out-of-range query
 * values (`before=1e30`, `offset=1e30`, `2024-13-45`), and bodies whose every likely field is
 * hostile (NUL, lone surrogate, 1e308, -1e308, arrays, nesting). Console routes are called
 * with an admin's session, the public API with a key. The rule: 0 × 5xx, and a console/API
 * error is JSON. Writes test-results/route-fuzz-report.md.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../lib/gateway/routes";
import { Session, signUp } from "../console-helpers";
import { createAccount } from "../support/accounts";
import { startTestServer, type TestServer } from "../support/server";

const ROOT = path.resolve(import.meta.dirname, "../..");
let server: TestServer;
let admin: Session;
let key: string;
const realIds: Record<string, string> = {};
const results: { method: string; path: string; case: string; status: number; json: boolean }[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: { STRIPE_SECRET_KEY: "sk_test_fuzz", STRIPE_WEBHOOK_SECRET: "whsec_fuzz", STRIPE_API_BASE: "http://127.0.0.1:9", DEFAULT_KEY_RPM: "1000000" } });
  admin = await signUp(server); // the first user: admin
  ({ key } = await createAccount(server, { usd: 2 }));
  const k = await admin.json("/api/console/keys", { method: "POST", body: { name: "fuzz", allowedModels: [] } });
  realIds.keys = k.body.key.id;
  const other = await signUp(server);
  realIds.users = (await other.json("/api/console/me")).body.user.id;
  realIds.models = (await admin.json("/api/admin/models")).body.items?.[0]?.id ?? "model_x";
  realIds.upstreams = (await admin.json("/api/admin/upstreams")).body.items?.[0]?.id ?? "upstream_x";
});

afterAll(async () => {
  const dir = path.join(ROOT, "test-results");
  fs.mkdirSync(dir, { recursive: true });
  const fives = results.filter((r) => r.status >= 500).length;
  fs.writeFileSync(
    path.join(dir, "route-fuzz-report.md"),
    [
      "# Route fuzz report",
      "",
      `${results.length} requests over ${new Set(results.map((r) => `${r.method} ${r.path.split("?")[0]}`)).size} method+path shapes; ${fives} × 5xx.`,
      "",
      "| method | path | case | status |",
      "|---|---|---|---|",
      ...results.map((r) => `| ${r.method} | ${r.path.slice(0, 80).replace(/\|/g, "\\|")} | ${r.case} | ${r.status} |`),
      "",
    ].join("\n"),
  );
  await server?.dispose();
});

/** Every app/api route file: its URL pattern and the methods it exports. */
function consoleRoutes(): { pattern: string; methods: string[] }[] {
  const out: { pattern: string; methods: string[] }[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "route.ts") {
        const src = fs.readFileSync(p, "utf8");
        const methods = [...src.matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!);
        out.push({ pattern: "/" + path.relative(path.join(ROOT, "app"), path.dirname(p)).split(path.sep).join("/"), methods });
      }
    }
  };
  walk(path.join(ROOT, "app/api"));
  return out;
}

// Raw (already %-encoded where needed) path segments.
const ODD_SEGMENTS: [string, string][] = [
  ["NUL", "%00"],
  ["malformed %-escape", "cs_%FF"],
  ["truncated %-escape", "x%E0%A4%A"],
  ["encoded lone surrogate", "%ED%A0%80"],
  ["5,000 characters", "a".repeat(5000)],
  ["dot-dot", "..%2F..%2Fetc%2Fpasswd"],
  ["1e30", "1e30"],
  ["-1", "-1"],
  ["emoji", "%F0%9F%92%A5"],
];

const ODD_QUERIES: [string, string][] = [
  ["before=1e30", "before=1e30"],
  ["before=-1", "before=-1"],
  ["before=2024-13-45", "before=2024-13-45"],
  ["offset=1e30", "offset=1e30"],
  ["offset=-5", "offset=-5"],
  ["limit=1e30", "limit=1e30"],
  ["from/to impossible", "from=2024-13-45&to=2024-02-30"],
  ["from huge year", "from=99999-01-01"],
  ["NUL filters", "q=%00&taskId=%00&model=%00&keyId=%00&requestId=%00&after=%00&format=%00&status=%00&variant=%00"],
  ["lone surrogate filters", "q=%ED%A0%80&model=%ED%A0%80&keyId=%ED%A0%80"],
  ["malformed %", "q=%FF&model=%E0%A4"],
  ["status 1e30", "status=1e30"],
  ["before=9007199254740993", "before=9007199254740993"],
];

const FIELDS = [
  "name", "email", "password", "url", "secret", "id", "modelId", "upstreamId", "upstreamModel", "kind", "family", "ownedBy",
  "baseUrl", "apiKey", "protocol", "note", "usd", "amountUsd", "amountCents", "graceSeconds", "allowedModels", "limitUsd",
  "rpm", "expiresAt", "role", "disabled", "priority", "price", "defaultMaxTokens", "enabled", "model", "messages", "input",
  "prompt", "contents", "seconds", "size", "max_tokens", "headers", "q", "taskId", "before", "offset",
];
const fill = (v: unknown) => JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, v])));
const ODD_BODIES: [string, string][] = [
  ["every field NUL", fill("a\u0000b")],
  ["every field a lone surrogate", fill("x\ud800y")],
  ["every field 1e308", fill(1e308)],
  ["every field -1e308", fill(-1e308)],
  ["every field 1e30", fill(1e30)],
  ["every field an array", fill(["a\u0000"])],
  ["every field an object", fill({ a: "\udfff" })],
  ["NUL key", '{"\\u0000":"x"}'],
  ["price object huge", JSON.stringify({ price: { inputPerMTokUsd: 1e308, outputPerMTokUsd: "1e308", perImageUsd: -1 }, priority: 1e30 })],
  ["dates impossible", JSON.stringify({ expiresAt: "2024-13-45T99:99:99Z", before: "2024-13-45" })],
  ["not JSON", "{"],
  ["JSON null", "null"],
];

async function call(method: string, pathAndQuery: string, body: string | undefined, asApi: boolean, label: string) {
  const headers: Record<string, string> = asApi
    ? { authorization: `Bearer ${key}` }
    : { cookie: admin.cookieHeader(), origin: admin.origin };
  if (body !== undefined) headers["content-type"] = "application/json";
  let status = 0;
  let json = true;
  try {
    const r = await fetch(`${server.url}${pathAndQuery}`, { method, headers, body, redirect: "manual" });
    status = r.status;
    const text = await r.text();
    if (status >= 400 && !pathAndQuery.startsWith("/api/auth/")) {
      try {
        JSON.parse(text);
      } catch {
        json = false;
      }
    }
  } catch (err) {
    status = 599; // connection reset: as bad as a 5xx
  }
  results.push({ method, path: pathAndQuery, case: label, status, json });
  return { status, json };
}

function expand(pattern: string, segment: string): string {
  // [id] / [...path] (Next) and {id} (gateway) all take the odd segment.
  return pattern.replace(/\[\.\.\.[^\]]+\]|\[[^\]]+\]|\{[^}]+\}/g, segment);
}

function realFor(pattern: string): string | undefined {
  const m = /\/api\/(?:console|admin)\/(keys|users|models|upstreams)\/\[id\]/.exec(pattern);
  return m ? realIds[m[1]!] : undefined;
}

describe("named refusals (the cases the hostile-input suite found)", () => {
  it("public API: non-storable text in the body or query is a 400 naming the field", async () => {
    const chat = (body: unknown, q = "") =>
      fetch(`${server.url}/v1/chat/completions${q}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    for (const [body, q, param] of [
      [{ model: "demo-chat\u0000", messages: [{ role: "user", content: "hi" }] }, "", "model"],
      [{ model: "demo-chat\ud800", messages: [{ role: "user", content: "hi" }] }, "", "model"],
      [{ model: "demo-chat", messages: [{ role: "user", content: "a\u0000b" }] }, "", "messages.0.content"],
      [{ model: "demo-chat", messages: [{ role: "user", content: "hi" }] }, "?x=%00", "x"],
    ] as const) {
      const r = await chat(body, q);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { param?: string } }).error.param).toBe(param);
    }
  });

  it("console: out-of-range numbers and impossible dates are 400s naming the parameter", async () => {
    for (const [path, field] of [
      ["/api/console/ledger?before=1e30", "before"],
      ["/api/console/ledger?before=99999999999999999999", "before"],
      ["/api/admin/users?offset=1e30", "offset"],
      ["/api/admin/audit?before=1e30", "before"],
      ["/api/console/usage?from=2024-13-45", "from"],
      ["/api/console/usage?to=2024-02-30", "to"],
      ["/api/console/usage?before=1e30", "before"],
      ["/api/console/tasks?before=2024-13-45", "before"],
      ["/api/console/webhooks?before=1e30", "before"],
      ["/api/console/usage?model=%00", "model"],
    ] as const) {
      const r = await admin.json(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error.field, path).toBe(field);
    }
  });

  it("console: a key named with a lone surrogate is refused and nothing is created; a duplicate model route is a 409", async () => {
    const before = (await admin.json("/api/console/keys")).body.items.length;
    const r = await admin.json("/api/console/keys", { method: "POST", body: { name: "bad \ud800 name", allowedModels: [] } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe("name");
    expect((await admin.json("/api/console/keys")).body.items.length).toBe(before);
    const rows = (await admin.json("/api/admin/models")).body.items as { modelId: string; upstreamId: string; kind: string }[];
    const text = rows.find((m) => m.kind === "text")!;
    const dup = await admin.json("/api/admin/models", {
      method: "POST",
      body: { modelId: text.modelId, upstreamId: text.upstreamId, kind: "text", ownedBy: "x", price: { inputPerMTok: 1, outputPerMTok: 1 } },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("conflict");
  });
});

// Thousands of requests: slow on a loaded machine.
describe("route fuzz: 0 × 5xx", { timeout: 600_000 }, () => {
  it("finds the routes", () => {
    expect(consoleRoutes().length).toBeGreaterThan(25);
    expect(allRoutes().length).toBeGreaterThan(15);
  });

  it("console and auth routes (app/api)", async () => {
    for (const { pattern, methods } of consoleRoutes()) {
      if (pattern.startsWith("/api/auth/")) continue; // next-auth's own; exercised by the sign-in tests
      for (const method of methods) {
        const hasParam = pattern.includes("[");
        const paths: [string, string][] = hasParam ? ODD_SEGMENTS.map(([n, s]) => [n, expand(pattern, s)]) : [["plain", pattern]];
        const real = realFor(pattern);
        if (real && method !== "DELETE") paths.push(["real id", expand(pattern, real)]);
        for (const [segName, p] of paths) {
          if (method === "GET") {
            for (const [qName, q] of ODD_QUERIES) await call(method, `${p}?${q}`, undefined, false, `${segName}; ${qName}`);
          } else {
            for (const [bName, b] of ODD_BODIES) await call(method, p, b, false, `${segName}; ${bName}`);
          }
        }
      }
    }
    const bad = results.filter((r) => r.path.startsWith("/api/") && (r.status >= 500 || !r.json));
    expect(bad.map((r) => `${r.method} ${r.path.slice(0, 100)} [${r.case}] → ${r.status}${r.json ? "" : " (not JSON)"}`)).toEqual([]);
  });

  it("the checkout status route answers a malformed id with a JSON 400/404", async () => {
    const r = await fetch(`${server.url}/api/console/billing/checkout/cs_%FF`, { headers: { cookie: admin.cookieHeader() } });
    expect([400, 404]).toContain(r.status);
    expect(r.headers.get("content-type")).toMatch(/json/);
  });

  it("public API routes (the gateway's route table)", async () => {
    const before = results.length;
    for (const def of allRoutes()) {
      const hasParam = def.path.includes("{");
      const paths: [string, string][] = hasParam ? ODD_SEGMENTS.map(([n, s]) => [n, expand(def.path, s)]) : [["plain", def.path]];
      if (def.path.includes("{model}")) paths.push(["real model", expand(def.path, "demo-chat")]);
      for (const [segName, p] of paths) {
        if (def.method === "GET" || def.method === "DELETE") {
          for (const [qName, q] of ODD_QUERIES) await call(def.method, `${p}?${q}`, undefined, true, `${segName}; ${qName}`);
        } else {
          for (const [bName, b] of ODD_BODIES) await call(def.method, p, b, true, `${segName}; ${bName}`);
          await call(def.method, `${p}?key=%00&alt=%ED%A0%80`, ODD_BODIES[0]![1], true, `${segName}; NUL query`);
        }
      }
    }
    const bad = results.slice(before).filter((r) => r.status >= 500 || !r.json);
    expect(bad.map((r) => `${r.method} ${r.path.slice(0, 100)} [${r.case}] → ${r.status}${r.json ? "" : " (not JSON)"}`)).toEqual([]);
  });
});
