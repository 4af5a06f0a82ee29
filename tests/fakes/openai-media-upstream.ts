/**
 * A fake OpenAI media upstream on 127.0.0.1 (random port): POST /v1/embeddings and
 * POST /v1/images/generations in the exact wire format of reference/media.md. It records every
 * request it receives and can be scripted to fail with 500, reject with 400, hang until closed,
 * answer floats whatever encoding_format asked for, omit usage, or report another image size.
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
    const body = await readJson(req);
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
    if (behave(script.images, res)) return;
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
      usage: { input_tokens: 12, input_tokens_details: { text_tokens: 12, image_tokens: 0 }, output_tokens: 1056, total_tokens: 1068 },
    };
    if (!script.omitImageSize) out.size = size;
    send(res, 200, out);
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

function errorBody(message: string) {
  return { error: { message, type: "invalid_request_error", param: null, code: null } };
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
