/**
 * A fake OpenAI media upstream on 127.0.0.1 (random port): POST /v1/embeddings and
 * POST /v1/images/generations in the exact wire format of reference/media.md. It records every
 * request it receives and can be scripted to fail with 500, reject with 400, hang until closed,
 * answer floats whatever encoding_format asked for, omit usage, or report another image size.
 * Images stream as OpenAI streams them (`stream: true`, `partial_images` 0–3): SSE events
 * `image_generation.partial_image`, then `image_generation.completed` with the usage.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PNG } from "pngjs";

export type MediaBehavior = "ok" | "fail500" | "fail400" | "hang" | "floats-only";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface FakeOpenAIMedia {
  /** Base URL including `/v1`, as the gateway config expects for protocol "openai". */
  baseUrl: string;
  requests: RecordedRequest[];
  script: {
    embeddings: MediaBehavior;
    images: MediaBehavior;
    /** Leave `usage` out of embedding answers. */
    omitUsage: boolean;
    /** The `size` the fake says it produced (default: the requested one, 1536x1024 for auto). */
    imageSize?: string;
    /** Leave `size` out of image answers, so the gateway must read the image's own dimensions. */
    omitImageSize: boolean;
    /** Wait this long before answering (so concurrent requests overlap). */
    delayMs: number;
    /** The image `usage` the fake reports (default: 12 text tokens in, 1056 image tokens out). */
    imageUsage?: Record<string, unknown>;
    /** Streams: drop the connection after the partial images, before `completed`. */
    breakStream?: boolean;
  };
  /** Requests whose client (the gateway) went away before the fake answered. */
  aborted: RecordedRequest[];
  /** Vector the fake returns for input i: exactly representable float32 values. */
  vectorFor(text: string | number[], index: number, dims?: number): number[];
  close(): Promise<void>;
}

export const FAKE_API_KEY = "sk-upstream-fake-media";

export async function startFakeOpenAIMedia(): Promise<FakeOpenAIMedia> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const aborted: RecordedRequest[] = [];
  const script: FakeOpenAIMedia["script"] = { embeddings: "ok", images: "ok", omitUsage: false, omitImageSize: false, delayMs: 0 };

  const vectorFor = (text: string | number[], index: number, dims = 4): number[] => {
    const base = [text.length, index, 0.5, -1.25];
    return Array.from({ length: dims }, (_, i) => base[i % 4]! + Math.floor(i / 4));
  };

  const server = createServer(async (req, res) => {
    const body = String(req.headers["content-type"]).startsWith("multipart/form-data") ? await readForm(req) : await readJson(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const recorded = { method: req.method ?? "", path, headers: req.headers, body };
    requests.push(recorded);
    res.on("close", () => {
      if (!res.writableFinished) aborted.push(recorded);
    });
    if (script.delayMs > 0) await new Promise((r) => setTimeout(r, script.delayMs));
    if (req.headers.authorization !== `Bearer ${FAKE_API_KEY}`) return send(res, 401, errorBody("Incorrect API key provided."));
    if (req.method === "POST" && path === "/v1/embeddings") return embeddings(body, res);
    if (req.method === "POST" && path === "/v1/images/generations") return images(body, res);
    if (req.method === "POST" && path === "/v1/images/edits") return edits(body, res);
    send(res, 404, errorBody("Unknown route."));
  });

  function behave(b: MediaBehavior, res: ServerResponse): boolean {
    if (b === "hang") return true; // never answered; close() destroys the socket
    if (b === "fail500") return send(res, 500, errorBody("The server had an error while processing your request.")), true;
    if (b === "fail400") return send(res, 400, errorBody("Your request was rejected by the safety system.")), true;
    return false;
  }

  function embeddings(body: any, res: ServerResponse) {
    if (behave(script.embeddings, res)) return;
    const inputs: Array<string | number[]> =
      typeof body.input === "string" ? [body.input] : Array.isArray(body.input) && typeof body.input[0] === "number" ? [body.input] : body.input;
    const base64 = body.encoding_format === "base64" && script.embeddings !== "floats-only";
    const data = inputs.map((text, index) => {
      const vec = vectorFor(text, index, body.dimensions);
      return {
        object: "embedding",
        index,
        embedding: base64 ? Buffer.from(new Float32Array(vec).buffer).toString("base64") : vec,
      };
    });
    // One token per started group of four characters: below the gateway's byte-bound hold.
    const tokens = inputs.reduce((n, t) => n + (typeof t === "string" ? Math.ceil(t.length / 4) : t.length), 0);
    const out: Record<string, unknown> = { object: "list", data: data.reverse(), model: body.model };
    if (!script.omitUsage) out.usage = { prompt_tokens: tokens, total_tokens: tokens };
    send(res, 200, out);
  }

  function images(body: any, res: ServerResponse) {
    images_(body, res, "image_generation");
  }

  function images_(body: any, res: ServerResponse, prefix: string) {
    if (behave(script.images, res)) return;
    // OpenAI's documented refusals for streaming.
    if (body.stream !== undefined && typeof body.stream !== "boolean") return send(res, 400, errorBody("Invalid type for 'stream'.", "stream"));
    if (body.partial_images !== undefined && !(Number.isInteger(body.partial_images) && body.partial_images >= 0 && body.partial_images <= 3))
      return send(res, 400, errorBody("Invalid 'partial_images': must be between 0 and 3.", "partial_images"));
    if (body.stream === true && /^dall-e/.test(body.model)) return send(res, 400, errorBody("Streaming is not supported for this model.", "stream"));
    const requested = typeof body.size === "string" && body.size !== "auto" ? body.size : "1536x1024";
    const size = script.imageSize ?? requested;
    const [w, h] = size.split("x").map(Number) as [number, number];
    // A small real PNG with the produced size's aspect ratio.
    const png = new PNG({ width: Math.round(w / 32), height: Math.round(h / 32) });
    png.data.fill(200);
    const out: Record<string, unknown> = {
      created: Math.floor(Date.now() / 1000),
      data: [{ b64_json: PNG.sync.write(png).toString("base64") }],
      background: "opaque",
      output_format: "png",
      quality: body.quality ?? "medium",
      usage: script.imageUsage ?? { input_tokens: 12, input_tokens_details: { text_tokens: 12, image_tokens: 0 }, output_tokens: 1056, total_tokens: 1068 },
    };
    if (!script.omitImageSize) out.size = size;
    if (body.stream === true) return streamImages(body, out, res, prefix);
    send(res, 200, out);
  }

  /** OpenAI's edit refusals (images.edit reference), then the generation's answer with the input images' tokens. */
  function edits(body: any, res: ServerResponse) {
    if (!body.files) return send(res, 400, errorBody("The edits endpoint takes multipart/form-data.", "image"));
    const images = body.files.filter((f: FakeFile) => f.field === "image" || f.field === "image[]");
    if (images.length === 0) return send(res, 400, errorBody("Missing required parameter: 'image'.", "image"));
    if (images.length > 16) return send(res, 400, errorBody("Too many images: at most 16.", "image"));
    if (images.length > 1 && images.some((f: FakeFile) => f.field !== "image[]")) return send(res, 400, errorBody("Several images go as 'image[]'.", "image"));
    const mask = body.files.find((f: FakeFile) => f.field === "mask");
    if (mask && (mask.width !== images[0].width || mask.height !== images[0].height)) return send(res, 400, errorBody("Invalid mask: must have the same dimensions as the image.", "mask"));
    if (body.input_fidelity !== undefined && /^gpt-image-2($|-\d)/.test(body.model)) return send(res, 400, errorBody("input_fidelity is not supported for this model.", "input_fidelity"));
    const n = (v: unknown) => (typeof v === "string" ? Number(v) : v);
    const imageTokens = 194 * images.length;
    const usage = script.imageUsage ?? { input_tokens: 12 + imageTokens, input_tokens_details: { text_tokens: 12, image_tokens: imageTokens }, output_tokens: 1056, total_tokens: 1068 + imageTokens };
    const saved = script.imageUsage;
    script.imageUsage = usage;
    try {
      images_(Object.assign({}, body, { stream: body.stream === "true", partial_images: n(body.partial_images) }), res, "image_edit");
    } finally {
      script.imageUsage = saved;
    }
  }

  function streamImages(body: any, out: Record<string, any>, res: ServerResponse, prefix = "image_generation") {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    const common = { created_at: out.created, background: out.background, output_format: out.output_format, quality: out.quality, size: out.size ?? "auto" };
    const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    for (let i = 0; i < (body.partial_images ?? 0); i++) event(`${prefix}.partial_image`, { b64_json: out.data[0].b64_json, ...common, partial_image_index: i });
    // Let the partials reach the client, then drop the connection.
    if (script.breakStream) return void setTimeout(() => res.socket?.destroy(), 50);
    event(`${prefix}.completed`, { b64_json: out.data[0].b64_json, ...common, usage: out.usage });
    res.end();
  }

  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    aborted,
    script,
    vectorFor,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function errorBody(message: string, param: string | null = null) {
  return { error: { message, type: "invalid_request_error", param, code: null } };
}

function send(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

export interface FakeFile {
  field: string;
  filename: string;
  type: string;
  size: number;
  width: number;
  height: number;
}

/** A multipart body as its text fields plus `files` (each image's size read from its PNG header). */
async function readForm(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const form = await new Request("http://x/", { method: "POST", headers: { "content-type": String(req.headers["content-type"]) }, body: Buffer.concat(chunks) }).formData();
  const out: Record<string, unknown> = {};
  const files: FakeFile[] = [];
  for (const [k, v] of form.entries()) {
    if (typeof v === "string") out[k] = v;
    else {
      const bytes = Buffer.from(await v.arrayBuffer());
      const png = bytes.subarray(1, 4).toString("latin1") === "PNG";
      files.push({ field: k, filename: v.name, type: v.type, size: bytes.length, width: png ? bytes.readUInt32BE(16) : 0, height: png ? bytes.readUInt32BE(20) : 0 });
    }
  }
  out.files = files;
  return out;
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
