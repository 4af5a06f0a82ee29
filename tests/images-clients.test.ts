/**
 * Image generation and editing as people call it: the Vercel AI SDK's `generateImage` with the
 * @ai-sdk/openai provider (generations and multipart edits) and the JSON form of
 * POST /v1/images/edits (`images: [{ image_url }]`, `mask: { image_url }`: data: URLs and http(s)
 * URLs downloaded after admission through the media fetcher's guard), against the fake OpenAI
 * media upstream and the fake FLUX API; and Imagen's `:predict` wire on the Google surface for
 * any image model (@google/genai 3.x sends generateImages only to Vertex AI, so it is called as
 * the Gemini API's REST reference shows). Books checked (docs/images.md).
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateImage } from "ai";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PNG } from "pngjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FAKE_BFL_KEY, startFakeBfl, type FakeBfl } from "./fakes/bfl-upstream";
import { IMAGE_PRICES_USD } from "./fakes/media-gateway-config";
import { FAKE_API_KEY, startFakeOpenAIMedia, type FakeOpenAIMedia } from "./fakes/openai-media-upstream";
import { balanceUsd, createAccount } from "./support/accounts";
import { idleBooks } from "./support/books";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let server: TestServer;
let oa: FakeOpenAIMedia;
let bfl: FakeBfl;
let web: http.Server;
let webBase: string;
const webHits: string[] = [];
let key: string;
let email: string;

const TOKEN_PRICE = { perImage: IMAGE_PRICES_USD, inputPerMTok: 5, imageInputPerMTok: 8, imageOutputPerMTok: 30, outputPerMTok: 10 };
const png = (w: number, h: number, fill = 120) => {
  const p = new PNG({ width: w, height: h });
  p.data.fill(fill);
  return PNG.sync.write(p);
};
const dataUrl = (b: Buffer) => `data:image/png;base64,${b.toString("base64")}`;
const micro = (usd: number) => Math.round(usd * 1_000_000);

beforeAll(async () => {
  oa = await startFakeOpenAIMedia();
  bfl = await startFakeBfl();
  // A public web host serving the images an edit names by URL (allow-listed, as loopback is not public).
  web = http.createServer((req, res) => {
    webHits.push(req.url ?? "");
    if (req.url === "/cat.png") return void res.writeHead(200, { "content-type": "image/png" }).end(png(48, 48));
    if (req.url === "/mask.png") return void res.writeHead(200, { "content-type": "image/png" }).end(png(48, 48, 0));
    if (req.url === "/small-mask.png") return void res.writeHead(200, { "content-type": "image/png" }).end(png(16, 16, 0));
    if (req.url === "/page.html") return void res.writeHead(200, { "content-type": "text/html" }).end("<html></html>");
    if (req.url === "/moved.png") return void res.writeHead(302, { location: "/cat.png" }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
  const port = (web.address() as AddressInfo).port;
  webBase = `http://127.0.0.1:${port}`;
  const config = {
    upstreams: [
      { id: "oa", protocol: "openai", baseUrl: oa.baseUrl, apiKey: FAKE_API_KEY },
      { id: "bfl", protocol: "bfl", baseUrl: bfl.baseUrl, apiKey: FAKE_BFL_KEY },
    ],
    models: [
      { id: "img-tok", kind: "image", upstream: "oa", upstreamModel: "gpt-image-2", price: TOKEN_PRICE },
      { id: "img-oa", kind: "image", upstream: "oa", upstreamModel: "gpt-image-1", price: { perImage: IMAGE_PRICES_USD } },
      { id: "flux-2-pro", kind: "image", upstream: "bfl", upstreamModel: "flux-2-pro", price: { perImage: { "*": 0.03 } } },
      { id: "flux-kontext", kind: "image", upstream: "bfl", upstreamModel: "flux-kontext-pro", price: { perImage: { "*": 0.04 } } },
    ],
  };
  server = await startTestServer({ config, env: { MEDIA_URL_ALLOW_HOSTS: `127.0.0.1:${port}` } });
  ({ email, key } = await createAccount(server, { usd: 20 }));
});
afterAll(async () => {
  await server?.dispose();
  await oa?.close();
  await bfl?.close();
  await new Promise<void>((r) => (web ? web.close(() => r()) : r()));
});
beforeEach(() => {
  oa.requests.length = 0;
  bfl.requests.length = 0;
  webHits.length = 0;
  Object.assign(oa.script, { images: "ok", imageUsage: undefined, delayMs: 0 });
});

async function books() {
  if (!usesPostgres()) return null;
  const b = await idleBooks(server, email);
  expect([b.held, b.holds, b.balance]).toEqual([0, 0, b.ledger]);
  return b;
}

describe("Vercel AI SDK generateImage (@ai-sdk/openai)", () => {
  const provider = () => createOpenAI({ apiKey: key, baseURL: `${server.url}/v1` });

  it("generates on a GPT image model and is charged the usage the vendor reported", async () => {
    const before = await balanceUsd(server, email);
    const { image, responses } = await generateImage({ model: provider().image("img-tok"), prompt: "a lighthouse", size: "1024x1024", maxRetries: 0 });
    expect(PNG.sync.read(Buffer.from(image.uint8Array)).width).toBeGreaterThan(0);
    expect(oa.requests[0]!.body).toMatchObject({ model: "gpt-image-2", prompt: "a lighthouse", size: "1024x1024", n: 1 });
    // The default usage of the fake: 12 text tokens in, 1056 image tokens out.
    const cost = 12 * 5 + 1056 * 30;
    expect(micro(Number(responses[0]!.headers?.["x-gateway-cost-usd"]))).toBe(cost);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(cost);
    await books();
  });

  it("generates on FLUX (submit, poll, download) at its per-image price", async () => {
    const before = await balanceUsd(server, email);
    const { image } = await generateImage({ model: provider().image("flux-2-pro"), prompt: "a fox", size: "1536x1024", maxRetries: 0 });
    const img = PNG.sync.read(Buffer.from(image.uint8Array));
    expect([img.width, img.height]).toEqual([1536, 1024]);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(30_000);
    await books();
  });

  it("edits with several images and a mask (multipart) on a GPT image model", async () => {
    const before = await balanceUsd(server, email);
    await generateImage({
      model: provider().image("img-tok"),
      prompt: { text: "put them together", images: [png(32, 32), png(32, 32)], mask: png(32, 32, 0) },
      maxRetries: 0,
    });
    const sent = oa.requests[0]!;
    expect(sent.path).toBe("/v1/images/edits");
    expect(sent.body.files.map((f: { field: string }) => f.field)).toEqual(["image[]", "image[]", "mask"]);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(12 * 5 + 2 * 194 * 8 + 1056 * 30);
    await books();
  });

  it("edits with FLUX Kontext, the image sent as input_image", async () => {
    await generateImage({ model: provider().image("flux-kontext"), prompt: { text: "make it night", images: [png(64, 32)] }, maxRetries: 0 });
    expect(PNG.sync.read(Buffer.from(bfl.requests[0]!.body.input_image, "base64")).width).toBe(64);
  });

  it("surfaces a moderated FLUX task as the SDK's API error, charged nothing", async () => {
    const before = await balanceUsd(server, email);
    const err = await generateImage({ model: provider().image("flux-2-pro"), prompt: "bad [moderated]", maxRetries: 0 }).catch((e) => e);
    expect(err.statusCode).toBe(400);
    expect(String(err.message)).toContain("moderated");
    expect(await balanceUsd(server, email)).toBe(before);
    await books();
  });
});

describe("POST /v1/images/edits, JSON form", () => {
  const edit = (body: unknown) =>
    fetch(`${server.url}/v1/images/edits`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });

  it("takes data: URLs for the images and the mask, sent upstream as multipart", async () => {
    const before = await balanceUsd(server, email);
    const res = await edit({ model: "img-tok", prompt: "add a hat", images: [{ image_url: dataUrl(png(40, 40)) }], mask: { image_url: dataUrl(png(40, 40, 0)) }, quality: "high", size: "1024x1024" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Array<{ b64_json: string }> }).data[0]!.b64_json).toBeTruthy();
    expect(oa.requests[0]!.body.files.map((f: { field: string; width: number }) => [f.field, f.width])).toEqual([
      ["image", 40],
      ["mask", 40],
    ]);
    expect(micro(Number(res.headers.get("x-gateway-cost-usd")))).toBe(micro(before - (await balanceUsd(server, email))));
    await books();
  });

  it("downloads http(s) image URLs after admission and edits them", async () => {
    const res = await edit({ model: "img-tok", prompt: "merge", images: [{ image_url: `${webBase}/cat.png` }, { image_url: dataUrl(png(8, 8)) }], mask: { image_url: `${webBase}/mask.png` } });
    expect(res.status).toBe(200);
    expect(webHits.sort()).toEqual(["/cat.png", "/mask.png"]);
    expect(oa.requests[0]!.body.files.map((f: { field: string; width: number }) => [f.field, f.width])).toEqual([
      ["image[]", 48],
      ["image[]", 8],
      ["mask", 48],
    ]);
    await books();
  });

  it("sends a URL image to FLUX Kontext as base64", async () => {
    const res = await edit({ model: "flux-kontext", prompt: "sunset", images: [{ image_url: `${webBase}/cat.png` }] });
    expect(res.status).toBe(200);
    expect(PNG.sync.read(Buffer.from(bfl.requests[0]!.body.input_image, "base64")).width).toBe(48);
  });

  it.each([
    [{ images: [{ file_id: "file-abc" }] }, "images[0].file_id"],
    [{ images: [{ image_url: "ftp://x/y.png" }] }, "images[0].image_url"],
    [{ images: [{ image_url: "data:image/png;base64,aGVsbG8=" }] }, "images[0].image_url"],
    [{ images: [] }, "images"],
    [{ images: "x" }, "images"],
    [{ image: "data:image/png;base64,xx" }, "image"],
    [{ images: [{ image_url: "x" }], colour: "red" }, "colour"],
    [{ images: [{}] }, "images[0].image_url"],
    [{ images: Array.from({ length: 17 }, () => ({ image_url: "https://example.com/a.png" })) }, "images"],
  ])("refuses %j with a 400 naming %s, before any hold or download", async (extra, param) => {
    const before = await balanceUsd(server, email);
    const res = await edit({ model: "img-tok", prompt: "x", ...extra });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    expect(oa.requests).toHaveLength(0);
    expect(webHits).toHaveLength(0);
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it.each([
    [`/page.html`, "images[0].image_url", "content type"],
    [`/moved.png`, "images[0].image_url", "redirects are not followed"],
    [`/missing.png`, "images[0].image_url", "404"],
  ])("a URL that cannot be served (%s) is a 400 naming %s; the hold goes back whole", async (path, param, says) => {
    const before = await balanceUsd(server, email);
    const res = await edit({ model: "img-tok", prompt: "x", images: [{ image_url: `${webBase}${path}` }] });
    expect(res.status).toBe(400);
    const err = ((await res.json()) as { error: { param: string; message: string } }).error;
    expect(err.param).toBe(param);
    expect(err.message).toContain(says);
    expect(oa.requests).toHaveLength(0);
    expect(await balanceUsd(server, email)).toBe(before);
    await books();
  });

  it("checks a downloaded mask against the first image (400 naming mask.image_url)", async () => {
    const res = await edit({ model: "img-tok", prompt: "x", images: [{ image_url: `${webBase}/cat.png` }], mask: { image_url: `${webBase}/small-mask.png` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe("mask.image_url");
    expect(oa.requests).toHaveLength(0);
  });

  it("refuses a URL at a private address without an allow-list entry", async () => {
    const res = await edit({ model: "img-tok", prompt: "x", images: [{ image_url: "http://10.0.0.1/a.png" }] });
    expect(res.status).toBe(400);
    const err = ((await res.json()) as { error: { param: string; message: string } }).error;
    expect(err.param).toBe("images[0].image_url");
    expect(err.message).toMatch(/non-public|private/);
  });
});

describe("Imagen's :predict wire on the Google surface", () => {
  const predict = (model: string, body: unknown) =>
    fetch(`${server.url}/v1beta/models/${model}:predict`, { method: "POST", headers: { "x-goog-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });

  it("generates on FLUX at the asked aspect ratio and charges its per-image price", async () => {
    const before = await balanceUsd(server, email);
    const res = await predict("flux-2-pro", { instances: [{ prompt: "a harbour" }], parameters: { sampleCount: 1, aspectRatio: "3:2", outputOptions: { mimeType: "image/png" } } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { predictions: Array<{ bytesBase64Encoded: string; mimeType: string }> };
    const img = PNG.sync.read(Buffer.from(body.predictions[0]!.bytesBase64Encoded, "base64"));
    expect([img.width, img.height, body.predictions[0]!.mimeType]).toEqual([1536, 1024, "image/png"]);
    expect(bfl.requests[0]!.body).toMatchObject({ width: 1536, height: 1024, output_format: "png" });
    expect(micro(before - (await balanceUsd(server, email)))).toBe(30_000);
    await books();
  });

  it("generates on a GPT image model, charged its reported usage", async () => {
    const before = await balanceUsd(server, email);
    const res = await predict("img-tok", { instances: [{ prompt: "a kite" }] });
    expect(res.status).toBe(200);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(12 * 5 + 1056 * 30);
    await books();
  });

  it.each([
    [{ sampleCount: 2 }, "parameters.sampleCount"],
    [{ aspectRatio: "16:9" }, "parameters.aspectRatio"],
    [{ negativePrompt: "dogs" }, "parameters.negativePrompt"],
    [{ outputOptions: { mimeType: "image/webp" } }, "parameters.outputOptions"],
  ])("refuses %j in Google's error shape naming the field, charging nothing", async (parameters, field) => {
    const before = await balanceUsd(server, email);
    const res = await predict("flux-2-pro", { instances: [{ prompt: "x" }], parameters });
    expect(res.status).toBe(400);
    const err = ((await res.json()) as { error: { status: string; message: string } }).error;
    expect(err.status).toBe("INVALID_ARGUMENT");
    expect(err.message).toContain(field.split(".")[1]);
    expect(bfl.requests).toHaveLength(0);
    expect(await balanceUsd(server, email)).toBe(before);
  });
});
