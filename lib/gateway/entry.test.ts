import { describe, expect, it, vi } from "vitest";
import { createGatewayHandler } from "./entry";
import { json, type GatewayRequest } from "./http";
import type { RouteDef } from "./types";

vi.mock("../logger", () => {
  const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn(), debug: vi.fn(), isLevelEnabled: () => true };
  return { logger: () => log, sanitizeUrl: (u: string) => u };
});

const req = (method: string, path: string, body?: string, headers: Record<string, string> = {}): GatewayRequest => ({
  method,
  url: new URL(path, "http://localhost"),
  headers,
  body: body === undefined ? null : (async function* () { yield Buffer.from(body); })(),
  signal: new AbortController().signal,
});

const routes: RouteDef[] = [
  { method: "GET", path: "/v1/boom", auth: false, handler: async () => { throw new Error("secret internals at /srv/db"); } },
  {
    method: "POST",
    path: "/v1/echo",
    auth: false,
    bodyLimit: 64,
    handler: async (ctx) => {
      const b = await ctx.readJson();
      return b.ok ? json(200, b.value) : ctx.error(b.error);
    },
  },
  {
    method: "POST",
    path: "/v1/anthropic-style",
    auth: false,
    errorStyle: "anthropic",
    handler: async (ctx) => {
      const b = await ctx.readJson();
      return b.ok ? json(200, b.value) : ctx.error(b.error);
    },
  },
];
const handle = createGatewayHandler(routes);
const body = async (r: Awaited<ReturnType<typeof handle>>) => JSON.parse(String(r.body));

describe("gateway entry", () => {
  it("turns an unexpected exception into a 500 envelope that carries the request id and no internals", async () => {
    const r = await handle(req("GET", "/v1/boom"));
    expect(r.status).toBe(500);
    const rid = r.headers["x-request-id"]!;
    expect(rid).toMatch(/^req_/);
    expect(await body(r)).toEqual({ error: { message: `Internal error (request ${rid}).`, type: "server_error", code: "internal_error" } });
    expect(String(r.body)).not.toContain("secret");
  });

  it("answers malformed JSON, a non-UTF-8 body, an empty body and an oversized body with envelopes", async () => {
    const bad = await handle(req("POST", "/v1/echo", "{nope"));
    expect(bad.status).toBe(400);
    expect((await body(bad)).error).toMatchObject({ type: "invalid_request", code: "invalid_request" });
    expect((await body(bad)).error.message).toMatch(/not valid JSON/);
    const latin1 = await handle(req("POST", "/v1/echo", "\xff\xfe"));
    expect(latin1.status).toBe(400);
    const notUtf8 = await handle({ ...req("POST", "/v1/echo"), body: (async function* () { yield Buffer.from([0x7b, 0xff, 0x7d]); })() });
    expect((await body(notUtf8)).error.message).toMatch(/UTF-8/);
    const empty = await handle(req("POST", "/v1/echo", ""));
    expect((await body(empty)).error.message).toMatch(/required/);
    const big = await handle(req("POST", "/v1/echo", JSON.stringify({ x: "a".repeat(100) })));
    expect(big.status).toBe(413);
    expect((await body(big)).error.code).toBe("payload_too_large");
    const declared = await handle(req("POST", "/v1/echo", "{}", { "content-length": "1000000" }));
    expect(declared.status).toBe(413);
  });

  it("renders errors in the route's style: Anthropic clients get a top-level type", async () => {
    const r = await handle(req("POST", "/v1/anthropic-style", "{"));
    expect((await body(r)).type).toBe("error");
    expect((await body(r)).error.code).toBe("invalid_request");
  });

  it("sets x-request-id and x-should-retry: false on 404 and 405", async () => {
    const nf = await handle(req("GET", "/v1/none"));
    expect([nf.status, nf.headers["x-should-retry"]]).toEqual([404, "false"]);
    const na = await handle(req("PUT", "/v1/echo"));
    expect([na.status, na.headers.allow]).toEqual([405, "POST"]);
    expect(na.headers["x-request-id"]).toMatch(/^req_/);
  });

  it("refuses absurdly deep JSON with a 400 instead of overflowing the stack", async () => {
    const h = createGatewayHandler([{ ...routes[1]!, bodyLimit: 1_000_000 }]);
    const deep = await h(req("POST", "/v1/echo", "[".repeat(100_000) + "]".repeat(100_000)));
    expect(deep.status).toBe(400);
    expect((await body(deep)).error.message).toMatch(/nested more than 128 levels/);
    const fine = await h(req("POST", "/v1/echo", JSON.stringify({ a: [[[{ b: "[[[[{{{{ not structure" }]]] })));
    expect(fine.status).toBe(200);
  });
});
