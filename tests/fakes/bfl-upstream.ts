/**
 * A fake of Black Forest Labs' FLUX API (docs.bfl.ai) on 127.0.0.1:0, with its delivery host on
 * another port (another origin, which must never see the key):
 *
 * - POST /v1/{model} (x-key) → { id, polling_url, cost, input_mp, output_mp }; the body checked as
 *   BFL documents it, refused with FastAPI's 422 `{ detail: [{ loc, msg, type }] }`: FLUX.2
 *   width/height multiples of 16, at least 64, at most 4 MP, up to 8 input images (klein 4);
 *   FLUX 1.1 [pro]/[dev] multiples of 32 from 256 to 1440, no input image; Kontext an
 *   `aspect_ratio` from 3:7 to 7:3 and one `input_image`; `output_format` jpeg or png;
 *   input images must be base64 of an image (or a URL).
 * - GET /v1/get_result?id= (x-key): Pending for `stepsToComplete` polls, then Ready with
 *   `result.sample`, a signed URL on the delivery host that expires (`expireSamples()`).
 * - GET /v1/credits (x-key).
 *
 * Prompts steer: `[moderated]` → Request Moderated; `[content-moderated]` → Content Moderated
 * once done; `[error]` → Error; `[never]` stays Pending. `pollingHost` "foreign" answers
 * polling URLs on another host name (localhost), which must not get the key.
 */
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { imageSize } from "image-size";
import { PNG } from "pngjs";

export const FAKE_BFL_KEY = "bfl-test-key-0123456789";
const SIGNING = "delivery-signing-secret";

export interface BflRecorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

interface Task {
  id: string;
  model: string;
  prompt: string;
  polls: number;
  width: number;
  height: number;
  format: "png" | "jpeg";
}

export interface FakeBfl {
  baseUrl: string;
  deliveryBase: string;
  requests: BflRecorded[];
  deliveryRequests: BflRecorded[];
  tasks: Map<string, Task>;
  script: { stepsToComplete: number; pollingHost: "same" | "foreign"; expired: boolean; samplesServed: number };
  close(): Promise<void>;
}

const listen = async (s: http.Server) => {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as AddressInfo).port;
};

const send = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
const invalid = (res: http.ServerResponse, loc: string, msg: string) => send(res, 422, { detail: [{ loc: ["body", loc], msg, type: "value_error" }] });

/** A JPEG's header as image-size reads it (SOI, a JFIF APP0, SOF0 with the size, EOI): enough for a format check. */
function tinyJpeg(w: number, h: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, h >> 8, h & 255, w >> 8, w & 255, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}

function png(w: number, h: number): Buffer {
  const p = new PNG({ width: w, height: h });
  p.data.fill(90);
  return PNG.sync.write(p);
}

const INPUTS = ["input_image", "input_image_2", "input_image_3", "input_image_4", "input_image_5", "input_image_6", "input_image_7", "input_image_8"];

/** Kontext's ~1 MP output at an aspect ratio, on multiples of 32. */
function megapixelAt(ratio: number): [number, number] {
  const h = Math.sqrt(1024 * 1024 / ratio);
  return [Math.round((h * ratio) / 32) * 32, Math.round(h / 32) * 32];
}

export async function startFakeBfl(opts: { stepsToComplete?: number } = {}): Promise<FakeBfl> {
  const requests: BflRecorded[] = [];
  const deliveryRequests: BflRecorded[] = [];
  const tasks = new Map<string, Task>();
  const script = { stepsToComplete: opts.stepsToComplete ?? 2, pollingHost: "same" as "same" | "foreign", expired: false, samplesServed: 0 };
  let counter = 0;

  const delivery = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    deliveryRequests.push({ method: req.method ?? "", path: url.pathname + url.search, headers: req.headers, body: null });
    const id = /^\/results\/([^/]+)\/sample\.(png|jpeg)$/.exec(url.pathname)?.[1];
    const task = id ? tasks.get(id) : undefined;
    const se = Number(url.searchParams.get("se"));
    const good = task && url.searchParams.get("sig") === createHmac("sha256", SIGNING).update(`${task.id}:${se}`).digest("hex");
    if (!good) return void res.writeHead(403, { "content-type": "application/xml" }).end("<Error><Code>AuthenticationFailed</Code></Error>");
    if (script.expired || se < Date.now() / 1000) return void res.writeHead(403, { "content-type": "application/xml" }).end("<Error><Code>AuthenticationFailed</Code><Message>Signature not valid in the specified time frame</Message></Error>");
    script.samplesServed++;
    const bytes = task.format === "png" ? png(task.width, task.height) : tinyJpeg(task.width, task.height);
    res.writeHead(200, { "content-type": `image/${task.format}`, "content-length": bytes.length }).end(bytes);
  });
  const deliveryPort = await listen(delivery);
  const deliveryBase = `http://127.0.0.1:${deliveryPort}`;

  let apiPort = 0;
  const api = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      let body: any = null;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
      } catch {
        return send(res, 422, { detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] });
      }
      requests.push({ method: req.method ?? "", path: url.pathname + url.search, headers: req.headers, body });
      if (req.headers["x-key"] !== FAKE_BFL_KEY) return send(res, 403, { detail: "Not authenticated - Invalid Authentication" });
      if (req.method === "GET" && url.pathname === "/v1/credits") return send(res, 200, { credits: 1234.5 });
      if (req.method === "GET" && url.pathname === "/v1/get_result") return result(url.searchParams.get("id") ?? "", res);
      const m = /^\/v1\/(flux-[a-z0-9.-]+)$/.exec(url.pathname);
      if (req.method === "POST" && m) return submit(m[1]!, body, res);
      send(res, 404, { detail: "Not Found" });
    });
  });
  apiPort = await listen(api);
  const baseUrl = `http://127.0.0.1:${apiPort}`;

  function submit(model: string, b: any, res: http.ServerResponse) {
    if (!b || typeof b.prompt !== "string" || !b.prompt) return invalid(res, "prompt", "Field required");
    const format = b.output_format ?? "jpeg";
    if (format !== "jpeg" && format !== "png") return invalid(res, "output_format", "Input should be 'jpeg' or 'png'");
    const inputs = INPUTS.filter((k) => b[k] != null);
    for (const k of inputs) {
      const v = b[k];
      if (typeof v !== "string" || (!/^https?:\/\//.test(v) && !isImage(v))) return invalid(res, k, "Invalid image: not a base64-encoded image or URL");
    }
    let width: number;
    let height: number;
    if (/^flux-kontext/.test(model) || /ultra/.test(model)) {
      if (b.width != null || b.height != null) return invalid(res, b.width != null ? "width" : "height", "Extra inputs are not permitted");
      if (/ultra/.test(model) && inputs.length) return invalid(res, inputs[0]!, "Extra inputs are not permitted");
      if (inputs.length > 1 && !/^flux-kontext/.test(model)) return invalid(res, inputs[1]!, "Extra inputs are not permitted");
      let ratio = 1;
      if (b.aspect_ratio != null) {
        const r = /^(\d+):(\d+)$/.exec(String(b.aspect_ratio));
        if (!r) return invalid(res, "aspect_ratio", "Aspect ratio must be in the format 'width:height'");
        ratio = Number(r[1]) / Number(r[2]);
        if (ratio < 3 / 7 || ratio > 7 / 3) return invalid(res, "aspect_ratio", "Aspect ratio must be between 21:9 and 9:21");
      } else if (inputs.length && !/^https?:/.test(b[inputs[0]!])) {
        const d = imageSize(Buffer.from(b[inputs[0]!], "base64"));
        ratio = d.width! / d.height!;
      }
      [width, height] = megapixelAt(ratio);
    } else {
      const flux2 = /^flux-2-/.test(model);
      const step = flux2 ? 16 : 32;
      const [min, max] = flux2 ? [64, 2048] : [256, 1440];
      width = b.width ?? 1024;
      height = b.height ?? (flux2 ? 1024 : 768);
      for (const [k, v] of [["width", width], ["height", height]] as const) {
        if (!Number.isInteger(v) || v < min || v > max) return invalid(res, k, `Input should be between ${min} and ${max}`);
        if (v % step !== 0) return invalid(res, k, `Value must be a multiple of ${step}`);
      }
      if (flux2 && width * height > 4 * 1024 * 1024) return invalid(res, "width", "Output may be at most 4 megapixels");
      const maxInputs = flux2 ? (/klein/.test(model) ? 4 : 8) : 0;
      if (inputs.length > maxInputs) return invalid(res, inputs[maxInputs]!, "Extra inputs are not permitted");
    }
    const id = `bfl-${++counter}-${Math.random().toString(36).slice(2, 10)}`;
    tasks.set(id, { id, model, prompt: b.prompt, polls: 0, width, height, format });
    const host = script.pollingHost === "foreign" ? `http://localhost:${apiPort}` : baseUrl;
    const mp = Math.round((width * height) / 1e4) / 100;
    send(res, 200, { id, polling_url: `${host}/v1/get_result?id=${id}`, cost: /^flux-2-pro/.test(model) ? 3 + Math.max(0, Math.ceil(mp) - 1) * 1.5 : 4, input_mp: 0, output_mp: mp });
  }

  function result(id: string, res: http.ServerResponse) {
    const t = tasks.get(id);
    if (!t) return send(res, 200, { id, status: "Task not found", result: null, progress: null, details: null });
    if (t.prompt.includes("[moderated]")) return send(res, 200, { id, status: "Request Moderated", result: null, progress: null, details: { "Moderation Reasons": ["Derivative Works Filter"] } });
    t.polls++;
    if (t.prompt.includes("[never]") || t.polls < script.stepsToComplete) return send(res, 200, { id, status: "Pending", result: null, progress: Math.min(0.9, t.polls / script.stepsToComplete) });
    if (t.prompt.includes("[content-moderated]")) return send(res, 200, { id, status: "Content Moderated", result: null, progress: null, details: { "Moderation Reasons": ["NSFW"] } });
    if (t.prompt.includes("[error]")) return send(res, 200, { id, status: "Error", result: null, progress: null, details: { error: "Internal processing error" } });
    const se = Math.floor(Date.now() / 1000) + 600;
    const sig = createHmac("sha256", SIGNING).update(`${id}:${se}`).digest("hex");
    send(res, 200, {
      id,
      status: "Ready",
      result: { sample: `${deliveryBase}/results/${id}/sample.${t.format}?se=${se}&sig=${sig}`, prompt: t.prompt, seed: 42, start_time: Date.now() / 1000 - 2, end_time: Date.now() / 1000, duration: 2 },
      progress: null,
      details: null,
    });
  }

  return {
    baseUrl,
    deliveryBase,
    requests,
    deliveryRequests,
    tasks,
    script,
    close: () => Promise.all([new Promise<void>((r) => api.close(() => r())), new Promise<void>((r) => delivery.close(() => r()))]).then(() => undefined),
  };
}

function isImage(b64: string): boolean {
  if (!/^[A-Za-z0-9+/=]+$/.test(b64)) return false;
  try {
    const d = imageSize(Buffer.from(b64, "base64"));
    return Boolean(d.width && d.height);
  } catch {
    return false;
  }
}
