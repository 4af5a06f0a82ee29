/**
 * A fake of the OpenAI videos API on 127.0.0.1:0 (OpenAI's Videos API as documented):
 * POST /v1/videos (multipart as the SDK sends it, or JSON), GET /v1/videos/{id},
 * GET /v1/videos/{id}/content. Records every request (the API key is checked, never stored).
 *
 * Each GET of a running video advances it one step; prompts steer the outcome:
 *   `[fail]` → failed on the first poll; `[never]` → stays in_progress forever;
 *   `[create-500]` / `[create-400]` → the create call answers that status.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

export interface FakeVideo {
  id: string;
  object: "video";
  model: string;
  status: "queued" | "in_progress" | "completed" | "failed";
  progress: number;
  created_at: number;
  completed_at: number | null;
  expires_at: number | null;
  prompt: string;
  seconds: string;
  size: string;
  remixed_from_video_id: null;
  error: { code: string; message: string } | null;
}

export interface RecordedVideoRequest {
  method: string;
  path: string;
  contentType: string;
  authorized: boolean;
  /** Text fields of a create call (multipart or JSON). */
  fields: Record<string, string>;
  /** File fields of a multipart create: name → byte length. */
  files: Record<string, number>;
}

export interface FakeOpenAIVideoUpstream {
  /** Base URL including /v1, as an upstream's baseUrl. */
  baseUrl: string;
  apiKey: string;
  videos: Map<string, FakeVideo>;
  requests: RecordedVideoRequest[];
  /** Polls until completion for a normal prompt (default 3). */
  stepsToComplete: number;
  close(): Promise<void>;
}

const ASSETS = path.resolve(process.cwd(), "assets/demo-video");

function send(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function oaError(res: http.ServerResponse, status: number, message: string, code = "invalid_request_error") {
  send(res, status, { error: { message, type: code, param: null, code } });
}

export async function startFakeOpenAIVideoUpstream(opts: { apiKey?: string; stepsToComplete?: number } = {}): Promise<FakeOpenAIVideoUpstream> {
  const apiKey = opts.apiKey ?? "sk-fake-video-upstream";
  const videos = new Map<string, FakeVideo>();
  const requests: RecordedVideoRequest[] = [];
  const polls = new Map<string, number>();
  let counter = 0;
  const state = { stepsToComplete: opts.stepsToComplete ?? 3 };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void handle(req, res, Buffer.concat(chunks)).catch((err: Error) => oaError(res, 500, err.message, "server_error"));
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) {
    const url = new URL(req.url ?? "/", "http://fake");
    const contentType = String(req.headers["content-type"] ?? "");
    const authorized = req.headers.authorization === `Bearer ${apiKey}`;
    const rec: RecordedVideoRequest = { method: req.method ?? "", path: url.pathname, contentType, authorized, fields: {}, files: {} };
    requests.push(rec);
    if (!authorized) return oaError(res, 401, "Incorrect API key provided.", "invalid_api_key");

    if (req.method === "POST" && url.pathname === "/v1/videos") {
      if (contentType.startsWith("multipart/form-data")) {
        const form = await new Request("http://fake/", { method: "POST", headers: { "content-type": contentType }, body: new Uint8Array(raw) }).formData();
        for (const [k, v] of form.entries()) {
          if (typeof v === "string") rec.fields[k] = v;
          else rec.files[k] = (v as Blob).size;
        }
      } else {
        const json = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
        for (const [k, v] of Object.entries(json)) rec.fields[k] = typeof v === "string" ? v : JSON.stringify(v);
      }
      const prompt = rec.fields.prompt ?? "";
      if (!prompt) return oaError(res, 400, "Missing required parameter: 'prompt'.");
      if (prompt.includes("[create-500]")) return oaError(res, 500, "The server had an error.", "server_error");
      if (prompt.includes("[create-400]")) return oaError(res, 400, "Your request was rejected by the safety system.", "moderation_blocked");
      const id = `video_${(++counter).toString(16).padStart(8, "0")}${Date.now().toString(16)}`;
      const v: FakeVideo = {
        id,
        object: "video",
        model: rec.fields.model ?? "sora-2",
        status: "queued",
        progress: 0,
        created_at: Math.floor(Date.now() / 1000),
        completed_at: null,
        expires_at: null,
        prompt,
        seconds: rec.fields.seconds ?? "4",
        size: rec.fields.size ?? "720x1280",
        remixed_from_video_id: null,
        error: null,
      };
      videos.set(id, v);
      return send(res, 200, v);
    }

    const m = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(url.pathname);
    if (req.method === "GET" && m) {
      const v = videos.get(decodeURIComponent(m[1]!));
      if (!v) return oaError(res, 404, "Video not found.", "not_found");
      if (m[2]) {
        if (v.status !== "completed") return oaError(res, 400, "Video is not ready yet.", "video_not_ready");
        const file = path.join(ASSETS, `${fs.existsSync(path.join(ASSETS, `${v.size}.mp4`)) ? v.size : "1280x720"}.mp4`);
        res.writeHead(200, { "content-type": "video/mp4", "content-length": fs.statSync(file).size });
        fs.createReadStream(file).pipe(res);
        return;
      }
      advance(v);
      return send(res, 200, v);
    }
    return oaError(res, 404, `Unknown route ${req.method} ${url.pathname}`, "not_found");
  }

  function advance(v: FakeVideo) {
    if (v.status === "completed" || v.status === "failed") return;
    const n = (polls.get(v.id) ?? 0) + 1;
    polls.set(v.id, n);
    if (v.prompt.includes("[fail]")) {
      v.status = "failed";
      v.error = { code: "generation_failed", message: "The upstream could not generate this video." };
      return;
    }
    if (v.prompt.includes("[never]") || n < state.stepsToComplete) {
      v.status = "in_progress";
      v.progress = Math.min(95, Math.max(v.progress + 1, Math.round((n / state.stepsToComplete) * 100)));
      return;
    }
    v.status = "completed";
    v.progress = 100;
    v.completed_at = Math.floor(Date.now() / 1000);
    v.expires_at = v.completed_at + 3600;
  }

  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    videos,
    requests,
    get stepsToComplete() {
      return state.stepsToComplete;
    },
    set stepsToComplete(n: number) {
      state.stepsToComplete = n;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
