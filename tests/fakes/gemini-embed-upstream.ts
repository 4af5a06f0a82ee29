/**
 * A fake Gemini (Google AI v1beta) embedding upstream on 127.0.0.1 (random port):
 * `POST /v1beta/models/{model}:embedContent` and `:batchEmbedContents`, authenticated with
 * `x-goog-api-key`, answering in the wire shape @google/genai reads. Records every request;
 * can fail with 500 or hang until closed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { PNG } from "pngjs";
import type { AddressInfo, Socket } from "node:net";

export type GeminiBehavior = "ok" | "fail500" | "hang";

export interface GeminiRecorded {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface FakeGeminiEmbed {
  /** Host only, as the gateway config expects for protocol "gemini". */
  baseUrl: string;
  requests: GeminiRecorded[];
  script: { behavior: GeminiBehavior };
  vectorFor(text: string, dims?: number): number[];
  close(): Promise<void>;
}

export const FAKE_GEMINI_KEY = "fake-gemini-key";

export async function startFakeGeminiEmbed(): Promise<FakeGeminiEmbed> {
  const requests: GeminiRecorded[] = [];
  const sockets = new Set<Socket>();
  const script = { behavior: "ok" as GeminiBehavior };
  const vectorFor = (text: string, dims = 3) => Array.from({ length: dims }, (_, i) => (i === 0 ? text.length : 0.25 * i));

  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push({ path, headers: req.headers, body });
    if (req.headers["x-goog-api-key"] !== FAKE_GEMINI_KEY)
      return send(res, 400, { error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT" } });
    if (script.behavior === "hang") return;
    if (script.behavior === "fail500") return send(res, 500, { error: { code: 500, message: "Internal error", status: "INTERNAL" } });
    const g = /^\/v1beta\/models\/([^/:]+-image[^/:]*):generateContent$/.exec(path);
    if (req.method === "POST" && g) return generateImage(g[1]!, body, res);
    if (req.method === "POST" && /^\/v1beta\/models\/imagen-[^/:]+:predict$/.test(path)) return predictImage(body, res);
    const m = /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/.exec(path);
    if (req.method !== "POST" || !m) return send(res, 404, { error: { code: 404, message: "Not found", status: "NOT_FOUND" } });
    const text = (c: any) => (c?.parts ?? []).map((p: any) => p.text ?? "").join("");
    if (m[2] === "embedContent") return send(res, 200, { embedding: { values: vectorFor(text(body.content), body.outputDimensionality) } });
    return send(res, 200, {
      embeddings: (body.requests ?? []).map((r: any) => ({ values: vectorFor(text(r.content), r.outputDimensionality) })),
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script,
    vectorFor,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Gemini's documented aspect ratios for image output. */
const ASPECTS: Record<string, [number, number]> = { "1:1": [1024, 1024], "2:3": [832, 1248], "3:2": [1248, 832], "3:4": [864, 1184], "4:3": [1184, 864], "4:5": [896, 1152], "5:4": [1152, 896], "9:16": [768, 1344], "16:9": [1344, 768], "21:9": [1536, 672] };

/**
 * generateContent on an image model (gemini-2.5-flash-image): refuses what the API refuses,
 * answers one inline PNG of the aspect asked (1:1 by default) and usageMetadata by modality —
 * 1290 image tokens out, 258 tokens per input image. A prompt containing "unsafe" is blocked
 * as Google blocks one: finishReason IMAGE_SAFETY and no image.
 */
function generateImage(model: string, body: any, res: ServerResponse) {
  const invalid = (message: string) => send(res, 400, { error: { code: 400, message, status: "INVALID_ARGUMENT" } });
  const modalities: string[] = body?.generationConfig?.responseModalities ?? ["TEXT"];
  if (!modalities.includes("IMAGE")) return invalid("Model does not support the requested response modalities: text only.");
  const aspect = body.generationConfig.imageConfig?.aspectRatio ?? "1:1";
  if (!ASPECTS[aspect]) return invalid(`* GenerateContentRequest.generation_config.image_config.aspect_ratio: unsupported aspect ratio ${aspect}.`);
  const parts: any[] = body.contents?.[0]?.parts ?? [];
  const text = parts.map((p) => p.text ?? "").join("");
  const images = parts.filter((p) => p.inlineData).length;
  const promptText = Math.ceil(text.length / 4);
  const usageMetadata: Record<string, unknown> = {
    promptTokenCount: promptText + 258 * images,
    totalTokenCount: promptText + 258 * images,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: promptText }, ...(images ? [{ modality: "IMAGE", tokenCount: 258 * images }] : [])],
  };
  if (text.includes("unsafe")) return send(res, 200, { candidates: [{ finishReason: "IMAGE_SAFETY", index: 0 }], usageMetadata: { ...usageMetadata, candidatesTokenCount: 0 }, modelVersion: model });
  const [w, h] = ASPECTS[aspect]!;
  const png = new PNG({ width: Math.round(w / 32), height: Math.round(h / 32) });
  png.data.fill(90);
  send(res, 200, {
    candidates: [{ content: { role: "model", parts: [{ inlineData: { mimeType: "image/png", data: PNG.sync.write(png).toString("base64") } }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { ...usageMetadata, candidatesTokenCount: 1290, totalTokenCount: promptText + 258 * images + 1290, candidatesTokensDetails: [{ modality: "IMAGE", tokenCount: 1290 }] },
    modelVersion: model,
    responseId: "fake-response",
  });
}

/** Imagen's :predict: 1–4 samples, its five aspect ratios; a filtered prompt ("unsafe") leaves `predictions` out. */
function predictImage(body: any, res: ServerResponse) {
  const invalid = (message: string) => send(res, 400, { error: { code: 400, message, status: "INVALID_ARGUMENT" } });
  const prompt = body?.instances?.[0]?.prompt;
  if (typeof prompt !== "string") return invalid("instances[0].prompt is required.");
  const p = body.parameters ?? {};
  if (p.sampleCount !== undefined && !(p.sampleCount >= 1 && p.sampleCount <= 4)) return invalid("sampleCount must be between 1 and 4.");
  const sizes: Record<string, [number, number]> = { "1:1": [1024, 1024], "3:4": [896, 1280], "4:3": [1280, 896], "9:16": [768, 1408], "16:9": [1408, 768] };
  const aspect = p.aspectRatio ?? "1:1";
  if (!sizes[aspect]) return invalid(`Unsupported aspect ratio: ${aspect}.`);
  if (prompt.includes("unsafe")) return send(res, 200, {});
  const [w, h] = sizes[aspect]!;
  const png = new PNG({ width: Math.round(w / 32), height: Math.round(h / 32) });
  png.data.fill(160);
  send(res, 200, { predictions: Array.from({ length: p.sampleCount ?? 1 }, () => ({ bytesBase64Encoded: PNG.sync.write(png).toString("base64"), mimeType: "image/png" })) });
}

function send(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return null;
  }
}
