/**
 * Images drawn by a text model (decision 0073): a Gemini image model behind the fake Gemini
 * upstream, which answers `inlineData` image parts and reports the drawing as IMAGE tokens in
 * candidatesTokensDetails, as Gemini does. Each client protocol gets the image in its own form —
 * chat `message.images[]` / `delta.images[]`, Responses `image_generation_call` items, generateContent
 * `inlineData` — streamed and not; Messages is refused before any hold. The charge bills the image
 * tokens at `imageOutputPerMTok`, to the micro-dollar: header, log row and ledger agree.
 */
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { GoogleGenAI, Modality } from "@google/genai";
import { generateText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatUsd } from "../lib/billing/money";
import { GEMINI_FAKE_KEY, startFakeGemini } from "./fakes/gemini-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { logRowOf } from "./support/log-rows";
import { sseEvents } from "./support/usage-shapes";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

// A 1×1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
// Gemini 2.5 Flash Image's published prices (USD per million): 0.30 in, 2.50 text out, 30 image out.
const PRICE = { inputPerMTok: 0.3, outputPerMTok: 2.5, imageOutputPerMTok: 30 };
// 2,000 prompt tokens, 12 caption tokens and one 1024×1024 image (1,290 tokens).
const USAGE = { input: 2000, output: 12 + 1290 };
// µUSD: 2,000 × 0.3 + 12 × 2.5 + 1,290 × 30.
const CHARGE = 2000 * 0.3 + 12 * 2.5 + 1290 * 30;
const CAPTION = "Here is your lighthouse";

let server: TestServer;
let gemini: FakeTextUpstream;
let key: string;

beforeAll(async () => {
  gemini = await startFakeGemini();
  server = await startTestServer({
    config: {
      upstreams: [{ id: "ge", protocol: "gemini", baseUrl: gemini.baseUrl, apiKey: GEMINI_FAKE_KEY, timeoutMs: 5000 }],
      models: [{ id: "flash-image", kind: "text", upstream: "ge", upstreamModel: "gemini-2.5-flash-image", price: PRICE, defaultMaxTokens: 4000 }],
    },
  });
  ({ key } = await createAccount(server, { usd: 10 }));
});
afterAll(async () => {
  await server?.dispose();
  await gemini?.close();
});
beforeEach(() => gemini.reset({ text: CAPTION, images: [{ mimeType: "image/png", data: PNG }], usage: USAGE }));

type Client = "chat" | "responses" | "gemini";

function request(client: Client, stream: boolean) {
  const prompt = "Draw a lighthouse at dusk";
  if (client === "chat")
    return { path: "/v1/chat/completions", body: { model: "flash-image", messages: [{ role: "user", content: prompt }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) } };
  if (client === "responses") return { path: "/v1/responses", body: { model: "flash-image", input: prompt, stream } };
  return { path: `/v1beta/models/flash-image:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`, body: { contents: [{ role: "user", parts: [{ text: prompt }] }] } };
}

async function call(client: Client, stream: boolean) {
  const r = request(client, stream);
  const res = await fetch(`${server.url}${r.path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-goog-api-key": key }, body: JSON.stringify(r.body) });
  return { res, text: await res.text(), requestId: res.headers.get("x-request-id")! };
}

/** The images and caption the client reads, in its protocol's own form. */
function drawn(client: Client, stream: boolean, text: string): { images: string[]; caption: string; imageTokens: number | undefined } {
  if (!stream) {
    const b = JSON.parse(text);
    if (client === "chat") {
      const m = b.choices[0].message;
      return { images: m.images.map((i: any) => i.image_url.url), caption: m.content, imageTokens: b.usage.completion_tokens_details.image_tokens };
    }
    if (client === "responses") {
      const msg = b.output.find((o: any) => o.type === "message");
      return { images: b.output.filter((o: any) => o.type === "image_generation_call").map((o: any) => o.result), caption: msg.content[0].text, imageTokens: b.usage.output_tokens_details.image_tokens };
    }
    const parts = b.candidates[0].content.parts;
    const image = b.usageMetadata.candidatesTokensDetails?.find((d: any) => d.modality === "IMAGE")?.tokenCount;
    return { images: parts.filter((p: any) => p.inlineData).map((p: any) => p.inlineData.data), caption: parts.filter((p: any) => p.text).map((p: any) => p.text).join(""), imageTokens: image };
  }
  const events = sseEvents(text).map((e) => e.data);
  if (client === "chat") {
    const deltas = events.filter((e) => e.choices?.length).map((e) => e.choices[0].delta);
    const usage = events.find((e) => e.usage && !e.choices?.length)?.usage;
    return { images: deltas.flatMap((d) => (d.images ?? []).map((i: any) => i.image_url.url)), caption: deltas.map((d) => d.content ?? "").join(""), imageTokens: usage?.completion_tokens_details.image_tokens };
  }
  if (client === "responses") {
    const done = events.filter((e) => e.type === "response.output_item.done").map((e) => e.item);
    const completed = events.find((e) => e.type === "response.completed").response;
    expect(events.filter((e) => e.type === "response.image_generation_call.completed")).toHaveLength(1);
    expect(completed.output.map((o: any) => o.type)).toEqual(["message", "image_generation_call"]);
    return {
      images: done.filter((o: any) => o.type === "image_generation_call").map((o: any) => o.result),
      caption: events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join(""),
      imageTokens: completed.usage.output_tokens_details.image_tokens,
    };
  }
  const parts = events.flatMap((e) => e.candidates[0].content.parts);
  const last = events.at(-1);
  return {
    images: parts.filter((p: any) => p.inlineData).map((p: any) => p.inlineData.data),
    caption: parts.filter((p: any) => p.text).map((p: any) => p.text).join(""),
    imageTokens: last.usageMetadata.candidatesTokensDetails?.find((d: any) => d.modality === "IMAGE")?.tokenCount,
  };
}

/** The ledger's charge for the request (written with its settlement, after the reply). */
async function ledgerCharge(requestId: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const rows = await server.query<{ delta_micro_usd: string }>("select delta_micro_usd from ledger_entries where request_id = $1 and kind = 'charge'", [requestId]);
    if (rows.length) return -rows.reduce((n, r) => n + Number(r.delta_micro_usd), 0);
    await new Promise((r) => setTimeout(r, 50));
  }
  return NaN;
}

const CASES: Array<[Client, boolean]> = (["chat", "responses", "gemini"] as const).flatMap((c) => [[c, false], [c, true]] as Array<[Client, boolean]>);

describe("a Gemini image model's drawing reaches every client protocol, billed at the image price", () => {
  it.each(CASES)("%s client, stream %s", async (client, stream) => {
    const { res, text, requestId } = await call(client, stream);
    expect(res.status, text).toBe(200);
    const got = drawn(client, stream, text);
    const expected = client === "chat" ? `data:image/png;base64,${PNG}` : PNG;
    expect(got.images).toEqual([expected]);
    expect(got.caption.replace(/\s+/g, " ").trim()).toBe(CAPTION);
    expect(got.imageTokens).toBe(1290);
    if (!stream) expect(res.headers.get("x-gateway-cost-usd")).toBe(formatUsd(CHARGE));
    // The upstream was asked as Gemini is: the same endpoint whatever the client spoke.
    expect(gemini.generationRequests()[0]!.path).toContain("/models/gemini-2.5-flash-image:");
    const row = await logRowOf(server, requestId);
    if (row) {
      expect(Number(row.cost_micro_usd)).toBe(CHARGE);
      expect(row).toMatchObject({ settlement: "completed", input_tokens: 2000, output_tokens: 1302, image_output_tokens: 1290, reasoning_tokens: 0 });
      expect(row.price_snapshot).toMatchObject({ inputPerMTok: 300_000, outputPerMTok: 2_500_000, imageOutputPerMTok: 30_000_000 });
      expect(await ledgerCharge(requestId)).toBe(CHARGE);
    }
  });

  it("the openai SDK reads the Responses image item, streamed and not", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const r = await client.responses.create({ model: "flash-image", input: "Draw a lighthouse" });
    const item = r.output.find((o) => o.type === "image_generation_call");
    expect(item?.type === "image_generation_call" && item.result).toBe(PNG);
    gemini.reset({ text: CAPTION, images: [{ mimeType: "image/png", data: PNG }], usage: USAGE });
    const stream = await client.responses.create({ model: "flash-image", input: "Draw a lighthouse", stream: true });
    const results: string[] = [];
    for await (const e of stream) if (e.type === "response.output_item.done" && e.item.type === "image_generation_call" && e.item.result) results.push(e.item.result);
    expect(results).toEqual([PNG]);
  });

  it("@google/genai's generateContent and generateContentStream read the drawing as inlineData", async () => {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
    const config = { responseModalities: [Modality.TEXT, Modality.IMAGE] };
    const r = await ai.models.generateContent({ model: "flash-image", contents: "Draw a lighthouse", config });
    expect(r.candidates![0]!.content!.parts!.find((p) => p.inlineData)?.inlineData).toEqual({ mimeType: "image/png", data: PNG });
    expect(r.usageMetadata?.candidatesTokensDetails?.find((d) => d.modality === "IMAGE")?.tokenCount).toBe(1290);
    gemini.reset({ text: CAPTION, images: [{ mimeType: "image/png", data: PNG }], usage: USAGE });
    const images: string[] = [];
    for await (const c of await ai.models.generateContentStream({ model: "flash-image", contents: "Draw a lighthouse", config }))
      for (const p of c.candidates?.[0]?.content?.parts ?? []) if (p.inlineData?.data) images.push(p.inlineData.data);
    expect(images).toEqual([PNG]);
  });

  it("the Vercel AI SDK's Google provider returns the drawing as a file, its usage the billed tokens", async () => {
    const google = createGoogleGenerativeAI({ apiKey: key, baseURL: `${server.url}/v1beta` });
    const r = await generateText({ model: google("flash-image"), prompt: "Draw a lighthouse", providerOptions: { google: { responseModalities: ["TEXT", "IMAGE"] } } });
    expect(r.files.map((f) => [f.mediaType, f.base64])).toEqual([["image/png", PNG]]);
    expect(r.text.replace(/\s+/g, " ").trim()).toBe(CAPTION);
    expect(r.usage.outputTokens).toBe(1302);
  });

  it("a chained turn sends the drawn image back to Gemini as the model's own inlineData", async () => {
    const first = await call("responses", false);
    const output = JSON.parse(first.text).output;
    gemini.reset({ text: "Done", usage: { input: 3000, output: 2 } });
    const res = await fetch(`${server.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "flash-image", input: [{ role: "user", content: "Draw a lighthouse" }, ...output, { role: "user", content: "Now at night" }] }),
    });
    expect(res.status, await res.text()).toBe(200);
    const sent = gemini.generationRequests()[0]!.body.contents;
    expect(sent[1]).toEqual({ role: "model", parts: [{ text: CAPTION }, { inlineData: { mimeType: "image/png", data: PNG } }] });
  });

  it("Messages has no image output: a model priced as drawing is a 400 naming `model`, before any hold or upstream call", async () => {
    for (const stream of [false, true]) {
      const res = await fetch(`${server.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "flash-image", max_tokens: 2000, messages: [{ role: "user", content: "Draw a lighthouse" }], stream }),
      });
      const body = await res.json();
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect(body.error.message).toMatch(/^model: this model answers with images, which the Messages API cannot carry/);
      const requestId = res.headers.get("x-request-id");
      if (usesPostgres() && requestId) expect(await server.query("select 1 from ledger_entries where request_id = $1", [requestId])).toEqual([]);
    }
    expect(gemini.generationRequests()).toHaveLength(0);
  });
});
