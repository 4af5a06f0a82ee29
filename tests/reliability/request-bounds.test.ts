/**
 * What one request may make an instance do (docs/reliability.md, "Request bounds"): a model id
 * over 256 characters is a 400 naming `model` on every route that takes one, before any lookup,
 * and a 1 MB id against a three-star alias pattern is answered in milliseconds while /healthz
 * stays fast (decision 0022's patterns were backtracking regular expressions); media URLs are
 * downloaded only once the key's limits and the hold passed (a $0 key makes the gateway fetch
 * nothing), and the files of one request stop at the target's inline limit (Gemini's 20 MB)
 * without the instance's memory growing by hundreds of MB.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultUpstream, type FaultUpstream } from "../fakes/fault-upstream";
import { startFakeGemini } from "../fakes/gemini-upstream";
import type { FakeTextUpstream } from "../fakes/text-fake-core";
import { createAccount } from "../support/accounts";
import { startTestServer, type TestServer } from "../support/server";

let server: TestServer;
let up: FaultUpstream;
let gemini: FakeTextUpstream;
let web: Server;
let webHost = "";
/** Requests the loopback "web" received, and the bytes it managed to send. */
const served = { requests: 0, bytes: 0 };
const FILE_MB = 15;

const price = { inputPerMTok: 1, outputPerMTok: 2 };

beforeAll(async () => {
  up = await startFaultUpstream("sk-bounds-upstream");
  gemini = await startFakeGemini();
  const file = Buffer.alloc(FILE_MB * 1024 * 1024, 7);
  web = createServer((req, res) => {
    served.requests++;
    res.writeHead(200, { "content-type": "image/png", "content-length": String(file.length) });
    // In 1 MB pieces, so a download the gateway stops early leaves most of the file unsent.
    let at = 0;
    const pump = () => {
      while (at < file.length) {
        const piece = file.subarray(at, at + 1024 * 1024);
        at += piece.length;
        served.bytes += piece.length;
        if (!res.write(piece)) return void res.once("drain", pump);
      }
      res.end();
    };
    res.on("error", () => {});
    pump();
  });
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
  webHost = `127.0.0.1:${(web.address() as AddressInfo).port}`;
  const config = {
    upstreams: [
      { id: "oa", protocol: "openai", baseUrl: `${up.url}/v1`, apiKey: up.key },
      { id: "vid", protocol: "openai-video", baseUrl: `${up.url}/v1`, apiKey: up.key },
      { id: "gem", protocol: "gemini", baseUrl: gemini.baseUrl, apiKey: gemini.apiKey },
    ],
    models: [
      { id: "chat-m", kind: "text", upstream: "oa", price },
      { id: "gem-m", kind: "text", upstream: "gem", price },
      { id: "emb-m", kind: "embedding", upstream: "oa", price: { inputPerMTok: 1 } },
      { id: "img-m", kind: "image", upstream: "oa", price: { perImage: { "*": 0.01 } } },
      { id: "vid-m", kind: "video", upstream: "vid", family: "t2v", price: { perVideo: 0.25 } },
    ],
    aliases: [{ id: "claude-*-4-5-*-x*y", targets: ["chat-m"] }],
  };
  server = await startTestServer({ config, env: { MEDIA_URL_ALLOW_HOSTS: webHost, DEFAULT_KEY_RPM: "100000" } });
}, 240_000);
afterAll(async () => {
  await server?.dispose();
  await up?.close();
  await gemini?.close();
  await new Promise((r) => web?.close(r));
});

const post = (path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

/** Peak resident memory of the server process so far (VmHWM), in MB. */
function serverPeakRssMb(): number {
  const line = execFileSync("ss", ["-ltnpH", `sport = :${server.port}`]).toString();
  const pid = /pid=(\d+)/.exec(line)?.[1];
  if (!pid) throw new Error(`no process listens on ${server.port}`);
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

describe("model ids", () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await createAccount(server, { usd: 5 }));
  });

  it("over 256 characters: a 400 naming `model` in each protocol's shape, on every route that takes a model", async () => {
    const id = `m${"x".repeat(299)}`;
    const cases: [string, string, unknown, (b: any) => void][] = [
      ["chat", "/v1/chat/completions", { model: id, messages: [{ role: "user", content: "hi" }] }, (b) => expect(b.error).toMatchObject({ param: "model", code: "invalid_request" })],
      ["messages", "/v1/messages", { model: id, max_tokens: 5, messages: [{ role: "user", content: "hi" }] }, (b) => expect(b).toMatchObject({ type: "error", error: { type: "invalid_request_error" } })],
      ["responses", "/v1/responses", { model: id, input: "hi" }, (b) => expect(b.error).toMatchObject({ param: "model" })],
      ["background responses", "/v1/responses", { model: id, input: "hi", background: true, previous_response_id: "resp_nope" }, (b) => expect(b.error).toMatchObject({ param: "model" })],
      ["gemini", `/v1beta/models/${id}:generateContent`, { contents: [{ role: "user", parts: [{ text: "hi" }] }] }, (b) => expect(b.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" })],
      ["embeddings", "/v1/embeddings", { model: id, input: "hi" }, (b) => expect(b.error).toMatchObject({ param: "model" })],
      ["images", "/v1/images/generations", { model: id, prompt: "a square" }, (b) => expect(b.error).toMatchObject({ param: "model" })],
      ["videos", "/v1/videos", { model: id, prompt: "a pan", seconds: "4" }, (b) => expect(b.error).toMatchObject({ param: "model" })],
    ];
    up.reset();
    for (const [name, path, body, shape] of cases) {
      const r = await post(path, key, body);
      const json = (await r.json()) as any;
      expect(r.status, name).toBe(400);
      shape(json);
      expect(JSON.stringify(json), name).toMatch(/model.*300 characters long; model ids are at most 256/);
    }
    expect(up.hits).toEqual([]);
    // The log row keeps at most 256 characters of what was asked.
    const rows = await server.query<{ n: number }>("select max(length(model)) as n from request_logs");
    expect(Number(rows[0]!.n)).toBeLessThanOrEqual(256);
  });

  it("a 1 MB id against a three-star alias pattern is answered in milliseconds; /healthz stays fast meanwhile", async () => {
    const huge = `claude-${"-4-5-".repeat(210_000)}`;
    const health: number[] = [];
    let done = false;
    const probe = (async () => {
      while (!done) {
        const t = performance.now();
        await (await fetch(`${server.url}/healthz`)).arrayBuffer();
        health.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = await post("/v1/chat/completions", key, { model: huge, messages: [{ role: "user", content: "hi" }] });
      await r.arrayBuffer();
      times.push(performance.now() - t);
      expect(r.status).toBe(400);
    }
    // The same megabyte as a prompt to an unknown model: what reading and parsing the body costs.
    const base: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = await post("/v1/chat/completions", key, { model: "no-such-model", messages: [{ role: "user", content: huge }] });
      await r.arrayBuffer();
      base.push(performance.now() - t);
    }
    done = true;
    await probe;
    const worst = Math.max(...times);
    console.log(`request bounds: 1 MB model id × 5: ${times.map(Math.round).join("/")} ms (the same MB as a prompt: ${base.map(Math.round).join("/")} ms); /healthz worst ${Math.round(Math.max(...health))} ms over ${health.length} probes`);
    expect(worst).toBeLessThan(500);
    expect(Math.max(...health)).toBeLessThan(500);
  });
});

describe("media URLs", () => {
  const image = (n: number) => ({ type: "image_url", image_url: { url: `http://${webHost}/file-${n}.png` } });

  it("a $0 key makes the gateway download nothing (402 first)", async () => {
    const { key } = await createAccount(server);
    served.requests = 0;
    const r = await post("/v1/chat/completions", key, { model: "gem-m", messages: [{ role: "user", content: [{ type: "text", text: "what is it" }, image(0), image(1)] }] });
    expect(r.status).toBe(402);
    expect(served.requests).toBe(0);
    expect(gemini.generationRequests()).toHaveLength(0);
  });

  it("a funded request whose files pass Gemini's 20 MB inline limit is refused naming it, without hundreds of MB of memory", async () => {
    const { key } = await createAccount(server, { usd: 5 });
    served.requests = 0;
    served.bytes = 0;
    const before = serverPeakRssMb();
    const images = Array.from({ length: 8 }, (_, i) => image(i + 10));
    const r = await post("/v1/chat/completions", key, { model: "gem-m", messages: [{ role: "user", content: [{ type: "text", text: "compare" }, ...images] }] });
    const body = (await r.json()) as any;
    expect(r.status).toBe(400);
    expect(body.error.message).toMatch(/larger than Gemini's 20 MB inline request limit allows/);
    expect(gemini.generationRequests()).toHaveLength(0);
    const grown = serverPeakRssMb() - before;
    console.log(`request bounds: 8 × ${FILE_MB} MB media URLs to Gemini: ${served.requests} downloads started, ${Math.round(served.bytes / 1048576)} MB sent by the web; peak RSS +${Math.round(grown)} MB`);
    // Two downloads at most (the second stops at the 5 MB left); 8 × 15 MB would have been 120 MB of downloads.
    expect(served.requests).toBeLessThanOrEqual(2);
    expect(grown).toBeLessThan(120);
    // Nine URLs: refused before any download.
    served.requests = 0;
    const nine = await post("/v1/chat/completions", key, { model: "gem-m", messages: [{ role: "user", content: Array.from({ length: 9 }, (_, i) => image(i + 30)) }] });
    expect(nine.status).toBe(400);
    expect(((await nine.json()) as any).error.message).toMatch(/at most 8 per request/);
    expect(served.requests).toBe(0);
  });
});
