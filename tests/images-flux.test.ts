/**
 * Black Forest Labs' FLUX API (protocol `bfl`) behind /v1/images/generations and
 * /v1/images/edits, through the official openai SDK against the fake BFL API
 * (tests/fakes/bfl-upstream.ts): submit → poll → download of the signed sample, per-image
 * prices held before and settled after, moderated and failed tasks charged nothing, the key only
 * ever sent to BFL's API origin (docs/images.md, "Black Forest Labs").
 */
import OpenAI, { toFile } from "openai";
import { PNG } from "pngjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bflImage } from "../lib/gateway/upstreams/bfl-image";
import type { ModelRoute } from "../lib/gateway/model-route";
import { FAKE_BFL_KEY, startFakeBfl, type FakeBfl } from "./fakes/bfl-upstream";
import { balanceUsd, createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let server: TestServer;
let bfl: FakeBfl;
let client: OpenAI;
let email: string;

const FLUX2_PRICES = { "*:1024x1024": 0.03, "*:1536x1024": 0.045, "*:1024x1536": 0.045 };

beforeAll(async () => {
  bfl = await startFakeBfl();
  const config = {
    upstreams: [
      { id: "bfl", protocol: "bfl", baseUrl: bfl.baseUrl, apiKey: FAKE_BFL_KEY },
      { id: "bfl-badkey", protocol: "bfl", baseUrl: bfl.baseUrl, apiKey: "wrong-key" },
    ],
    models: [
      { id: "flux-2-pro", kind: "image", upstream: "bfl", upstreamModel: "flux-2-pro", price: { perImage: FLUX2_PRICES } },
      { id: "flux-2-klein", kind: "image", upstream: "bfl", upstreamModel: "flux-2-klein-4b", price: { perImage: { "*": 0.014 } } },
      { id: "flux-pro-1.1", kind: "image", upstream: "bfl", upstreamModel: "flux-pro-1.1", price: { perImage: { "*": 0.04 } } },
      { id: "flux-ultra", kind: "image", upstream: "bfl", upstreamModel: "flux-pro-1.1-ultra", price: { perImage: { "*": 0.06 } } },
      { id: "flux-kontext", kind: "image", upstream: "bfl", upstreamModel: "flux-kontext-pro", price: { perImage: { "*": 0.04 } } },
      { id: "flux-badkey", kind: "image", upstream: "bfl-badkey", upstreamModel: "flux-2-pro", price: { perImage: { "*": 0.03 } } },
    ],
  };
  server = await startTestServer({ config });
  let key: string;
  ({ email, key } = await createAccount(server, { usd: 10 }));
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 130_000 });
});
afterAll(async () => {
  await server?.dispose();
  await bfl?.close();
});
beforeEach(() => {
  bfl.requests.length = 0;
  bfl.deliveryRequests.length = 0;
  Object.assign(bfl.script, { stepsToComplete: 2, pollingHost: "same", expired: false });
});

const micro = (usd: number) => Math.round(usd * 1_000_000);
const png = (w: number, h: number) => {
  const p = new PNG({ width: w, height: h });
  p.data.fill(200);
  return PNG.sync.write(p);
};

async function charges(requestId: string | null) {
  const rows = await server.query<{ delta_micro_usd: string }>("select delta_micro_usd from ledger_entries where request_id = $1 and kind = 'charge'", [requestId]);
  return rows.map((r) => -Number(r.delta_micro_usd));
}

describe("FLUX generations", () => {
  it("submits, polls and downloads the sample, answers b64_json and charges the per-image price of the size made", async () => {
    const before = await balanceUsd(server, email);
    const { data, response } = await client.images.generate({ model: "flux-2-pro", prompt: "a lighthouse at dusk", size: "1536x1024" }).withResponse();
    const img = PNG.sync.read(Buffer.from(data.data![0]!.b64_json!, "base64"));
    expect([img.width, img.height]).toEqual([1536, 1024]);
    expect(data.size).toBe("1536x1024");
    const [submit, ...polls] = bfl.requests;
    expect(submit!.path).toBe("/v1/flux-2-pro");
    expect(submit!.body).toEqual({ prompt: "a lighthouse at dusk", width: 1536, height: 1024, output_format: "png" });
    // Pending once, then Ready: two polls, each with the key.
    expect(polls.map((p) => p.path.split("?")[0])).toEqual(["/v1/get_result", "/v1/get_result"]);
    expect(bfl.requests.every((r) => r.headers["x-key"] === FAKE_BFL_KEY)).toBe(true);
    // The signed sample is fetched once, without the key.
    expect(bfl.deliveryRequests).toHaveLength(1);
    expect(bfl.deliveryRequests[0]!.headers["x-key"]).toBeUndefined();
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(45_000);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(45_000);
    if (usesPostgres()) {
      const id = response.headers.get("x-request-id");
      expect(await charges(id)).toEqual([45_000]);
      const [row] = await server.query<{ cost_micro_usd: string; settlement: string; status: number }>("select cost_micro_usd, settlement, status from request_logs where request_id = $1", [id]);
      expect(row).toEqual({ cost_micro_usd: "45000", settlement: "completed", status: 200 });
      const books = await idleBooks(server, email);
      expect([books.held, books.holds, books.balance]).toEqual([0, 0, books.ledger]);
    }
  });

  it("asks FLUX 1.1 [pro] for its largest size on multiples of 32 (1440x960 for 1536x1024)", async () => {
    const { data, response } = await client.images.generate({ model: "flux-pro-1.1", prompt: "a wide valley", size: "1536x1024" }).withResponse();
    expect(bfl.requests[0]!.body).toMatchObject({ width: 1440, height: 960 });
    const img = PNG.sync.read(Buffer.from(data.data![0]!.b64_json!, "base64"));
    expect([img.width, img.height]).toEqual([1440, 960]);
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(40_000);
  });

  it("asks Kontext and Ultra for an aspect ratio, and passes jpeg output through", async () => {
    const data = await client.images.generate({ model: "flux-kontext", prompt: "a tall tower", size: "1024x1536", output_format: "jpeg" });
    expect(bfl.requests[0]!.body).toEqual({ prompt: "a tall tower", aspect_ratio: "2:3", output_format: "jpeg" });
    expect(data.output_format).toBe("jpeg");
    await client.images.generate({ model: "flux-ultra", prompt: "a square", size: "1024x1024" });
    expect(bfl.requests.find((r) => r.path === "/v1/flux-pro-1.1-ultra")!.body).toMatchObject({ aspect_ratio: "1:1" });
  });

  it("never sends the key to a polling host the configuration did not name: polls the base's get_result instead", async () => {
    bfl.script.pollingHost = "foreign";
    await client.images.generate({ model: "flux-2-pro", prompt: "a cat", size: "1024x1024" });
    const polls = bfl.requests.filter((r) => r.path.startsWith("/v1/get_result"));
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((p) => p.headers.host?.startsWith("127.0.0.1:"))).toBe(true);
  });

  it.each([
    ["[moderated]", 400, "prompt", "request moderated"],
    ["[content-moderated]", 400, "prompt", "content moderated"],
    ["[error]", 502, undefined, "Error"],
  ] as const)("a task ending %s answers %i and charges nothing", async (tag, status, param, says) => {
    const before = await balanceUsd(server, email);
    const err = await client.images.generate({ model: "flux-2-pro", prompt: `a thing ${tag}`, size: "1024x1024" }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect([err.status, err.param ?? undefined]).toEqual([status, param]);
    expect(String(err.message)).toContain(says);
    expect(bfl.deliveryRequests).toHaveLength(0);
    expect(await balanceUsd(server, email)).toBe(before);
    if (usesPostgres()) {
      const id = err.headers.get("x-request-id");
      expect(await charges(id)).toEqual([]);
      const [row] = await server.query<{ cost_micro_usd: string; status: number }>("select cost_micro_usd, status from request_logs where request_id = $1", [id]);
      expect(row).toEqual({ cost_micro_usd: "0", status });
      const books = await idleBooks(server, email);
      expect([books.held, books.holds]).toEqual([0, 0]);
    }
  });

  it("a sample whose signed URL has expired is a 502, charged nothing", async () => {
    bfl.script.expired = true;
    const before = await balanceUsd(server, email);
    const err = await client.images.generate({ model: "flux-2-pro", prompt: "late", size: "1024x1024" }).catch((e) => e);
    expect(err.status).toBe(502);
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("an upstream that refuses the gateway's key is a 502 naming no key", async () => {
    const err = await client.images.generate({ model: "flux-badkey", prompt: "x" }).catch((e) => e);
    expect(err.status).toBe(502);
    expect(String(err.message)).not.toContain("wrong-key");
  });

  it.each([
    [{ output_format: "webp" }, "output_format"],
    [{ background: "transparent" }, "background"],
    [{ stream: true }, "stream"],
  ])("refuses %j with a 400 naming the field before any upstream call", async (extra, param) => {
    const res = await fetch(`${server.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "flux-2-pro", prompt: "x", ...extra }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    expect(bfl.requests).toHaveLength(0);
  });

  it("gives up at the deadline with a 504 while the task is still pending", async () => {
    const route: ModelRoute = {
      rowId: "r",
      modelId: "flux-2-pro",
      kind: "image",
      family: null,
      ownedBy: "bfl",
      upstreamModel: "flux-2-pro",
      price: { perImage: { "*": 30_000 } },
      defaultMaxTokens: null,
      strict: false,
      upstream: { id: "bfl", protocol: "bfl", baseUrl: bfl.baseUrl, apiKey: FAKE_BFL_KEY, timeoutMs: null },
    };
    const started = Date.now();
    const out = await bflImage(route, { model: "flux-2-pro", prompt: "slow [never]" }, { quality: null, requestedSize: "1024x1024", sizes: ["1024x1024"], holdMicroUsd: 30_000 }, { timeoutMs: 1_500 });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe("FLUX edits (Kontext and FLUX.2)", () => {
  it("sends a Kontext edit's image as input_image (base64) and keeps the input's framing for size auto", async () => {
    const { data, response } = await client.images.edit({ model: "flux-kontext", prompt: "make it night", image: await toFile(png(96, 64), "day.png", { type: "image/png" }) }).withResponse();
    const sent = bfl.requests[0]!.body;
    expect(Object.keys(sent).sort()).toEqual(["input_image", "output_format", "prompt"]);
    expect(PNG.sync.read(Buffer.from(sent.input_image, "base64")).width).toBe(96);
    const img = PNG.sync.read(Buffer.from(data.data![0]!.b64_json!, "base64"));
    expect(img.width).toBeGreaterThan(img.height);
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(40_000);
  });

  it("sends several images to FLUX.2 as input_image, input_image_2, …", async () => {
    const images = await Promise.all([1, 2, 3].map((i) => toFile(png(32, 32), `in${i}.png`, { type: "image/png" })));
    await client.images.edit({ model: "flux-2-pro", prompt: "combine", image: images, size: "1024x1024" });
    expect(Object.keys(bfl.requests[0]!.body).filter((k) => k.startsWith("input_image"))).toEqual(["input_image", "input_image_2", "input_image_3"]);
  });

  it("refuses what the model cannot edit with a 400 naming the field, before any call or charge", async () => {
    const before = await balanceUsd(server, email);
    const one = await toFile(png(32, 32), "a.png", { type: "image/png" });
    const mask = await client.images.edit({ model: "flux-kontext", prompt: "x", image: one, mask: await toFile(png(32, 32), "m.png", { type: "image/png" }) }).catch((e) => e);
    expect([mask.status, mask.param]).toEqual([400, "mask"]);
    const two = await client.images.edit({ model: "flux-kontext", prompt: "x", image: [one, await toFile(png(32, 32), "b.png", { type: "image/png" })] }).catch((e) => e);
    expect([two.status, two.param]).toEqual([400, "image"]);
    const five = await client.images.edit({ model: "flux-2-klein", prompt: "x", image: await Promise.all([1, 2, 3, 4, 5].map(() => toFile(png(8, 8), "a.png", { type: "image/png" }))) }).catch((e) => e);
    expect([five.status, five.param]).toEqual([400, "image"]);
    const genOnly = await client.images.edit({ model: "flux-pro-1.1", prompt: "x", image: one }).catch((e) => e);
    expect([genOnly.status, genOnly.param]).toEqual([400, "image"]);
    expect(bfl.requests).toHaveLength(0);
    expect(await balanceUsd(server, email)).toBe(before);
  });
});

describe("the fake keeps BFL's documented limits", () => {
  const post = (model: string, body: unknown, key = FAKE_BFL_KEY) =>
    fetch(`${bfl.baseUrl}/v1/${model}`, { method: "POST", headers: { "x-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });
  it.each([
    ["flux-2-pro", { prompt: "x", width: 1000, height: 1024 }, "width"],
    ["flux-2-pro", { prompt: "x", width: 2048, height: 2064 }, "height"],
    ["flux-pro-1.1", { prompt: "x", width: 1536, height: 1024 }, "width"],
    ["flux-pro-1.1", { prompt: "x", width: 1024, height: 1000 }, "height"],
    ["flux-kontext-pro", { prompt: "x", aspect_ratio: "21:8" }, "aspect_ratio"],
    ["flux-2-pro", { prompt: "x", output_format: "webp" }, "output_format"],
    ["flux-2-pro", { prompt: "x", input_image: "not an image" }, "input_image"],
  ])("%s refuses %j naming %s", async (model, body, field) => {
    const res = await post(model, body);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: Array<{ loc: string[] }> }).detail[0]!.loc).toEqual(["body", field]);
  });
  it("refuses a wrong key with 403", async () => {
    expect((await post("flux-2-pro", { prompt: "x" }, "nope")).status).toBe(403);
  });
});
