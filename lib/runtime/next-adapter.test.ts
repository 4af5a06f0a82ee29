/**
 * The Next mount answers a JSON error, never an empty 500, when it cannot serve: serverless mode
 * without DATABASE_URL (the embedded database needs one long-lived process and a disk).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env";
import { nextCronHandler, nextGatewayHandler } from "./next-adapter";

/** The Pages API route's handler on a loopback server, as Next calls it: node's request and response. */
async function viaGatewayRoute(path: string): Promise<Response & { handledUrl: string }> {
  let handledUrl = "";
  const server = http.createServer((req, res) => {
    void nextGatewayHandler(req, res);
    handledUrl = req.url ?? ""; // the handler settles its URL before its first await
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return Object.assign(new Response(await r.arrayBuffer(), { status: r.status, headers: r.headers }), { handledUrl });
  } finally {
    server.close();
  }
}

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetEnvCache();
});

describe("the Next mount without a database", () => {
  it.each([
    ["SERVERLESS", "1"],
    ["VERCEL", "1"],
  ])("%s=%s and no DATABASE_URL: 503 with a JSON error naming it", async (name, value) => {
    delete process.env.DATABASE_URL;
    process.env[name] = value;
    resetEnvCache();
    for (const r of [await viaGatewayRoute("/v1/models"), await nextCronHandler(new Request("http://gw.test/api/cron/tick"))]) {
      expect(r.status).toBe(503);
      const body = (await r.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("gateway_unavailable");
      expect(body.error.message).toContain("DATABASE_URL is not set");
    }
  });

  it("an invalid environment variable is named in the JSON error", async () => {
    process.env.DATABASE_POOL_SIZE = "lots";
    resetEnvCache();
    const r = await viaGatewayRoute("/v1/models");
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { message: string } }).error.message).toContain("DATABASE_POOL_SIZE");
  });
});

describe("the Next mount's URL", () => {
  it("a rewrite that hands over its destination (/api/gateway/v1/…) still reaches the client's route", async () => {
    process.env.SERVERLESS = "1";
    delete process.env.DATABASE_URL;
    resetEnvCache();
    const seen: string[] = [];
    for (const p of ["/api/gateway/v1beta/models?key=k", "/v1beta/models?key=k"]) {
      const r = await viaGatewayRoute(p);
      expect(r.status).toBe(503);
      seen.push(r.handledUrl);
    }
    expect(seen).toEqual(["/v1beta/models?key=k", "/v1beta/models?key=k"]);
  });
});
