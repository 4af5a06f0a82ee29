/**
 * GPT image models billed from the vendor's usage by token class, and streamed generations
 * (`stream: true`, `partial_images`) relayed as OpenAI's events, through the official openai
 * SDK against the fake OpenAI media upstream and the demo upstream (docs/images.md).
 */
import OpenAI, { toFile } from "openai";
import { PNG } from "pngjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeGeminiEmbed, type FakeGeminiEmbed } from "./fakes/gemini-embed-upstream";
import { IMAGE_PRICES_USD, mediaGatewayConfig } from "./fakes/media-gateway-config";
import { startFakeOpenAIMedia, type FakeOpenAIMedia } from "./fakes/openai-media-upstream";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let server: TestServer;
let oa: FakeOpenAIMedia;
let ge: FakeGeminiEmbed;
let client: OpenAI;
let email: string;

// gpt-image-2 style token prices (USD per million): text in 5, image in 8, image out 30, text out 10.
const TOKEN_PRICE = { perImage: IMAGE_PRICES_USD, inputPerMTok: 5, imageInputPerMTok: 8, imageOutputPerMTok: 30, outputPerMTok: 10 };

beforeAll(async () => {
  oa = await startFakeOpenAIMedia();
  ge = await startFakeGeminiEmbed();
  const config = mediaGatewayConfig(oa.baseUrl, ge.baseUrl);
  config.models.push(
    { id: "img-tok", kind: "image", upstream: "oa", upstreamModel: "gpt-image-2", price: TOKEN_PRICE as never },
    { id: "demo-image-tok", kind: "image", upstream: "demo", price: TOKEN_PRICE as never },
    // Gemini 2.5 Flash Image's published prices: $0.30/M in, $30/M image out (1290 tokens ≈ $0.039).
    { id: "img-imagen", kind: "image", upstream: "ge", upstreamModel: "imagen-4.0-generate-001", price: { perImage: { "*": 0.04 } } },
    { id: "img-gemini", kind: "image", upstream: "ge", upstreamModel: "gemini-2.5-flash-image", price: { perImage: { "*": 0.039 }, inputPerMTok: 0.3, imageOutputPerMTok: 30 } as never },
  );
  server = await startTestServer({ config });
  let key: string;
  ({ email, key } = await createAccount(server, { usd: 20 }));
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 130_000 });
});
afterAll(async () => {
  await server?.dispose();
  await oa?.close();
  await ge?.close();
});
beforeEach(() => {
  oa.requests.length = 0;
  Object.assign(oa.script, { images: "ok", imageUsage: undefined, breakStream: false, delayMs: 0 });
});

const micro = (usd: number) => Math.round(usd * 1_000_000);

async function logRows(requestId: string | null) {
  return server.query<{ cost_micro_usd: string; settlement: string; status: number; input_tokens: string | null; output_tokens: string | null; stream: boolean }>(
    "select cost_micro_usd, settlement, status, input_tokens, output_tokens, stream from request_logs where request_id = $1",
    [requestId],
  );
}

async function charges(requestId: string | null) {
  const rows = await server.query<{ delta_micro_usd: string }>("select delta_micro_usd from ledger_entries where request_id = $1 and kind = 'charge'", [requestId]);
  return rows.map((r) => -Number(r.delta_micro_usd));
}

describe("GPT image models billed by token class", () => {
  it("charges text in, image in, image out and text out each at its price, from the response usage", async () => {
    oa.script.imageUsage = {
      input_tokens: 60,
      input_tokens_details: { text_tokens: 20, image_tokens: 40 },
      output_tokens: 4200,
      output_tokens_details: { image_tokens: 4160, text_tokens: 40 },
      total_tokens: 4260,
    };
    const before = await balanceUsd(server, email);
    const { data, response } = await client.images.generate({ model: "img-tok", prompt: "a lighthouse", quality: "high", size: "1024x1024" }).withResponse();
    expect(data.data![0]!.b64_json).toBeTruthy();
    // Tokens × USD per million = micro-USD.
    const expected = 20 * 5 + 40 * 8 + 4160 * 30 + 40 * 10;
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(expected);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(expected);
    expect(oa.requests[0]!.body).toMatchObject({ model: "gpt-image-2", quality: "high", size: "1024x1024" });
    if (usesPostgres()) {
      const id = response.headers.get("x-request-id");
      expect(await charges(id)).toEqual([expected]);
      expect(await logRows(id)).toEqual([{ cost_micro_usd: String(expected), settlement: "completed", status: 200, input_tokens: "60", output_tokens: "4200", stream: false }]);
    }
  });

  it("never charges above the hold (the per-image worst case plus the prompt's bound)", async () => {
    oa.script.imageUsage = { input_tokens: 10, input_tokens_details: { text_tokens: 10, image_tokens: 0 }, output_tokens: 1_000_000, total_tokens: 1_000_010 };
    const { response } = await client.images.generate({ model: "img-tok", prompt: "abc", quality: "low", size: "1024x1024" }).withResponse();
    // perImage low:1024x1024 (0.021) + (3 bytes + 256) × 5 USD/M.
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(21_000 + 259 * 5);
  });

  it("charges the per-image price when the upstream reports no usage", async () => {
    oa.script.imageUsage = {}; // no token counts
    const { response } = await client.images.generate({ model: "img-tok", prompt: "abc", quality: "medium", size: "1024x1024" }).withResponse();
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(63_000);
  });

  it("lists the token prices on /v1/models", async () => {
    const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${client.apiKey}` } });
    const body = (await res.json()) as { data: Array<{ id: string; pricing?: Record<string, unknown> }> };
    const m = JSON.stringify(body.data.find((x) => x.id === "img-tok"));
    expect(m).toContain('"image_output_per_mtok":30');
    expect(m).toContain('"image_input_per_mtok":8');
  });
});

describe("streamed image generation", () => {
  it("relays the partial images and the completed event, and charges the completed event's usage", async () => {
    const before = await balanceUsd(server, email);
    const { data: stream, response } = await client.images.generate({ model: "img-tok", prompt: "a fox", quality: "medium", size: "1536x1024", stream: true, partial_images: 2 }).withResponse();
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events: OpenAI.Images.ImageGenStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.type)).toEqual(["image_generation.partial_image", "image_generation.partial_image", "image_generation.completed"]);
    expect(events.slice(0, 2).map((e) => (e as OpenAI.Images.ImageGenPartialImageEvent).partial_image_index)).toEqual([0, 1]);
    const done = events[2] as OpenAI.Images.ImageGenCompletedEvent;
    expect(done.size).toBe("1536x1024");
    expect(done.usage.output_tokens).toBe(1056);
    expect(oa.requests[0]!.body).toMatchObject({ stream: true, partial_images: 2, model: "gpt-image-2" });
    const expected = 12 * 5 + 1056 * 30;
    expect(micro(before - (await balanceUsd(server, email)))).toBe(expected);
    if (usesPostgres()) {
      const id = response.headers.get("x-request-id");
      expect(await charges(id)).toEqual([expected]);
      expect(await logRows(id)).toEqual([{ cost_micro_usd: String(expected), settlement: "completed", status: 200, input_tokens: "12", output_tokens: "1056", stream: true }]);
    }
  });

  it("charges nothing and says so when the upstream's stream breaks before the image", async () => {
    oa.script.breakStream = true;
    const before = await balanceUsd(server, email);
    const { data: stream, response } = await client.images.generate({ model: "img-tok", prompt: "a fox", stream: true, partial_images: 1 }).withResponse();
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of stream) seen.push(e.type);
    })().catch((e) => e);
    expect(seen).toEqual(["image_generation.partial_image"]);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(String(err.message)).toContain("nothing was charged");
    expect(await balanceUsd(server, email)).toBe(before);
    if (usesPostgres()) {
      const id = response.headers.get("x-request-id");
      expect(await charges(id)).toEqual([]);
      expect(await logRows(id)).toMatchObject([{ cost_micro_usd: "0", settlement: "upstream_error", stream: true }]);
      expect(await server.query("select 1 from holds")).toEqual([]);
    }
  });

  it("streams on the demo upstream, priced like any other", async () => {
    const before = await balanceUsd(server, email);
    const stream = await client.images.generate({ model: "demo-image-tok", prompt: "a red square", size: "1024x1024", quality: "high", stream: true, partial_images: 1 });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    expect(types).toEqual(["image_generation.partial_image", "image_generation.completed"]);
    // The demo reports a token per four prompt characters in and 1056 image tokens out.
    expect(micro(before - (await balanceUsd(server, email)))).toBe(3 * 5 + 1056 * 30);
  });

  it.each([
    [{ partial_images: 4, stream: true }, "partial_images"],
    [{ partial_images: 2 }, "partial_images"],
  ])("refuses %j before any upstream call, naming the field", async (extra, param) => {
    const res = await fetch(`${server.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "img-tok", prompt: "x", ...extra }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    expect(oa.requests).toHaveLength(0);
  });
});

describe("image edits (POST /v1/images/edits)", () => {
  const png = (w: number, h: number) => {
    const p = new PNG({ width: w, height: h });
    p.data.fill(120);
    return PNG.sync.write(p);
  };

  it("sends one image and a mask as multipart and charges the image input tokens at their price", async () => {
    const before = await balanceUsd(server, email);
    const { data, response } = await client.images
      .edit({ model: "img-tok", prompt: "add a hat", image: await toFile(png(64, 64), "cat.png", { type: "image/png" }), mask: await toFile(png(64, 64), "mask.png", { type: "image/png" }), quality: "high", size: "1024x1024" })
      .withResponse();
    expect(data.data![0]!.b64_json).toBeTruthy();
    const sent = oa.requests[0]!;
    expect(sent.path).toBe("/v1/images/edits");
    expect(sent.body).toMatchObject({ model: "gpt-image-2", prompt: "add a hat", quality: "high", size: "1024x1024", n: "1" });
    expect(sent.body.files.map((f: { field: string; width: number }) => [f.field, f.width])).toEqual([
      ["image", 64],
      ["mask", 64],
    ]);
    const expected = 12 * 5 + 194 * 8 + 1056 * 30;
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(expected);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(expected);
    if (usesPostgres()) {
      const id = response.headers.get("x-request-id");
      expect(await charges(id)).toEqual([expected]);
      expect(await logRows(id)).toEqual([{ cost_micro_usd: String(expected), settlement: "completed", status: 200, input_tokens: String(12 + 194), output_tokens: "1056", stream: false }]);
    }
  });

  it("sends several images as image[]", async () => {
    const images = await Promise.all([1, 2, 3].map((i) => toFile(png(32, 32), `in${i}.png`, { type: "image/png" })));
    const { response } = await client.images.edit({ model: "img-tok", prompt: "merge them", image: images, quality: "high" }).withResponse();
    expect(oa.requests[0]!.body.files.map((f: { field: string }) => f.field)).toEqual(["image[]", "image[]", "image[]"]);
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(12 * 5 + 3 * 194 * 8 + 1056 * 30);
  });

  it("streams an edit's partial images as image_edit events", async () => {
    const stream = await client.images.edit({ model: "img-tok", prompt: "add a hat", image: await toFile(png(32, 32), "cat.png", { type: "image/png" }), stream: true, partial_images: 1 });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    expect(types).toEqual(["image_edit.partial_image", "image_edit.completed"]);
    expect(oa.requests[0]!.body).toMatchObject({ stream: "true", partial_images: "1" });
  });

  it("edits on the demo upstream", async () => {
    const res = await client.images.edit({ model: "demo-image", prompt: "a blue sky", image: await toFile(png(32, 32), "a.png", { type: "image/png" }), quality: "low", size: "1024x1024" });
    expect(res.data![0]!.b64_json).toBeTruthy();
  });

  it("refuses what the model cannot take with a 400 naming the field, before any upstream call or charge", async () => {
    const before = await balanceUsd(server, email);
    const cat = await toFile(png(64, 64), "cat.png", { type: "image/png" });
    const mask = await client.images.edit({ model: "img-tok", prompt: "x", image: cat, mask: await toFile(png(32, 32), "m.png", { type: "image/png" }) }).catch((e) => e);
    expect([mask.status, mask.param]).toEqual([400, "mask"]);
    const many = await client.images.edit({ model: "img-tok", prompt: "x", image: await Promise.all(Array.from({ length: 17 }, () => toFile(png(8, 8), "a.png"))) }).catch((e) => e);
    expect([many.status, many.param]).toEqual([400, "image"]);
    const notImage = await client.images.edit({ model: "img-tok", prompt: "x", image: await toFile(Buffer.from("hello"), "a.png") }).catch((e) => e);
    expect([notImage.status, notImage.param]).toEqual([400, "image"]);
    const fidelity = await client.images.edit({ model: "img-tok", prompt: "x", image: cat, input_fidelity: "ultra" as never }).catch((e) => e);
    expect([fidelity.status, fidelity.param]).toEqual([400, "input_fidelity"]);
    expect(oa.requests).toHaveLength(0);
    // What the vendor refuses (input_fidelity on gpt-image-2) comes back as its 400, charged nothing.
    const vendor = await client.images.edit({ model: "img-tok", prompt: "x", image: cat, input_fidelity: "high" }).catch((e) => e);
    expect(vendor.status).toBe(400);
    expect(String(vendor.message)).toContain("input_fidelity");
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("answers 413 naming the 50 MB limit for a larger image", async () => {
    const big = Buffer.alloc(50 * 1024 * 1024 + 1);
    const err = await client.images.edit({ model: "img-tok", prompt: "x", image: await toFile(big, "big.png", { type: "image/png" }) }).catch((e) => e);
    expect(err.status).toBe(413);
    expect(String(err.message)).toContain("50 MB");
    expect(err.param).toBe("image");
  });
});

describe("Gemini image models (generateContent with an image output modality)", () => {
  const png = (w: number, h: number) => {
    const p = new PNG({ width: w, height: h });
    p.data.fill(50);
    return PNG.sync.write(p);
  };
  beforeEach(() => {
    ge.requests.length = 0;
  });

  it("generates through generateContent and charges usageMetadata's image output tokens and prompt tokens", async () => {
    const before = await balanceUsd(server, email);
    const { data, response } = await client.images.generate({ model: "img-gemini", prompt: "a nano banana", size: "1536x1024" }).withResponse();
    const bytes = Buffer.from(data.data![0]!.b64_json!, "base64");
    expect(PNG.sync.read(bytes).width).toBeGreaterThan(PNG.sync.read(bytes).height);
    const sent = ge.requests.at(-1)!;
    expect(sent.path).toBe("/v1beta/models/gemini-2.5-flash-image:generateContent");
    expect(sent.body).toEqual({ contents: [{ role: "user", parts: [{ text: "a nano banana" }] }], generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "3:2" } } });
    // 4 prompt tokens × 0.3 + 1290 × 30 micro-USD, rounded up once.
    const expected = Math.ceil(4 * 0.3 + 1290 * 30);
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(expected);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(expected);
    if (usesPostgres()) expect(await logRows(response.headers.get("x-request-id"))).toEqual([{ cost_micro_usd: String(expected), settlement: "completed", status: 200, input_tokens: "4", output_tokens: "1290", stream: false }]);
  });

  it("edits with the images as inline data before the prompt, their tokens at the input price", async () => {
    const { response } = await client.images.edit({ model: "img-gemini", prompt: "make it blue", image: await toFile(png(16, 16), "a.png", { type: "image/png" }) }).withResponse();
    const parts = ge.requests.at(-1)!.body.contents[0].parts;
    expect(parts.map((p: Record<string, unknown>) => Object.keys(p)[0])).toEqual(["inlineData", "text"]);
    expect(parts[0].inlineData.mimeType).toBe("image/png");
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(Math.ceil((3 + 258) * 0.3 + 1290 * 30));
  });

  it.each([
    ["a mask", async () => ({ mask: await toFile(png(16, 16), "m.png", { type: "image/png" }), image: await toFile(png(16, 16), "a.png", { type: "image/png" }) }), "mask"],
    ["a stream", async () => ({ stream: true }), "stream"],
    ["a blocked prompt", async () => ({ prompt: "something unsafe" }), "prompt"],
  ] as const)("refuses %s with a 400 naming the field, charging nothing", async (_what, extra, param) => {
    const before = await balanceUsd(server, email);
    const fields = await extra();
    const call = "image" in fields ? client.images.edit({ model: "img-gemini", prompt: "x", ...(fields as unknown as { image: File }) }) : client.images.generate({ model: "img-gemini", prompt: "x", ...(fields as object) } as never);
    const err = await Promise.resolve(call).then(async (s: unknown) => {
      // A stream's refusal arrives as the response status, before any event.
      if (s && typeof (s as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") for await (const _ of s as AsyncIterable<unknown>);
      return null;
    }, (e) => e);
    expect([err?.status, err?.param]).toEqual([400, param]);
    expect(await balanceUsd(server, email)).toBe(before);
    // Fields are refused before the hold and the call; a blocked prompt only by the vendor.
    expect(ge.requests).toHaveLength(param === "prompt" ? 1 : 0);
    if (usesPostgres() && err) expect(await logRows(err.headers.get("x-request-id"))).toMatchObject([{ cost_micro_usd: "0", status: 400 }]);
  });
});

describe("Imagen (:predict), priced per image", () => {
  it("generates at the nearest aspect Imagen has and charges its per-image price", async () => {
    const { data, response } = await client.images.generate({ model: "img-imagen", prompt: "a robot", size: "1536x1024" }).withResponse();
    expect(data.data![0]!.b64_json).toBeTruthy();
    expect(ge.requests.at(-1)!.path).toBe("/v1beta/models/imagen-4.0-generate-001:predict");
    expect(ge.requests.at(-1)!.body).toEqual({ instances: [{ prompt: "a robot" }], parameters: { sampleCount: 1, aspectRatio: "4:3" } });
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(40_000);
  });

  it("refuses an edit (400 naming image) and a filtered prompt (400 naming prompt), charging nothing", async () => {
    const before = await balanceUsd(server, email);
    const p = new PNG({ width: 8, height: 8 });
    const edit = await client.images.edit({ model: "img-imagen", prompt: "x", image: await toFile(PNG.sync.write(p), "a.png", { type: "image/png" }) }).catch((e) => e);
    expect([edit.status, edit.param]).toEqual([400, "image"]);
    const blocked = await client.images.generate({ model: "img-imagen", prompt: "unsafe thing" }).catch((e) => e);
    expect([blocked.status, blocked.param]).toEqual([400, "prompt"]);
    expect(await balanceUsd(server, email)).toBe(before);
  });
});
