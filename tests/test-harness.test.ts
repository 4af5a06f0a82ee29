/**
 * The harness itself: test files run in parallel, each starting servers on ports it picked and
 * released a moment before. When another process binds that port first, the server must not be
 * taken for ready because *something* answers there; it starts again on another port.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer | undefined;
const squatter = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"status":"ok","squatter":true}');
});
afterAll(async () => {
  await server?.dispose();
  squatter.close();
});

it("starts on another port when its port is taken by a server that answers /healthz", async () => {
  await new Promise<void>((r) => squatter.listen(0, "127.0.0.1", r));
  const taken = (squatter.address() as AddressInfo).port;

  server = await startTestServer({ port: taken });

  expect(server.port).not.toBe(taken);
  expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  expect(server.env.PORT).toBe(String(server.port));
  expect(server.env.PUBLIC_BASE_URL).toBe(`http://localhost:${server.port}`);
  expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
  // The gateway, not the squatter, answers: it knows its API routes.
  expect((await fetch(`${server.url}/v1/models`)).status).toBe(401);
});
