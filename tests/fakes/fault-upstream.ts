/**
 * One fake upstream on 127.0.0.1 that speaks every capability's wire format at once (OpenAI chat
 * completions, Anthropic messages, OpenAI embeddings, images and videos) and can be told to fail
 * all of them the same way: an HTTP status whose error message carries this upstream's URL, host
 * and API key (so a test can prove they never reach the client), a hang, a connection reset, or
 * a streamed answer cut after its first events. Used by the fault × capability matrix.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PNG } from "pngjs";

export type Fault = { kind: "ok" } | { kind: "status"; status: number } | { kind: "hang" } | { kind: "reset" } | { kind: "midstream" } | { kind: "too-large" };

export interface FaultUpstream {
  /** The root URL (Anthropic's base); OpenAI-style bases add `/v1`. */
  url: string;
  host: string;
  key: string;
  fault: Fault;
  /** A fault for one request by its body (a poison input, a max_tokens over a per-request limit); `fault` when it gives none. */
  choose?: (body: Record<string, unknown> | null) => Fault | undefined;
  /** Wait this long before answering a generation (holds stay in flight meanwhile). */
  delayMs: number;
  /** Paths of the generation requests received since the last reset (GET polls excluded). */
  hits: string[];
  reset(fault?: Fault): void;
  close(): Promise<void>;
}

const png = (() => {
  const img = new PNG({ width: 4, height: 4 });
  img.data.fill(200);
  return PNG.sync.write(img).toString("base64");
})();

export async function startFaultUpstream(key: string): Promise<FaultUpstream> {
  const sockets = new Set<Socket>();
  const state: FaultUpstream = {
    url: "",
    host: "",
    key,
    fault: { kind: "ok" },
    delayMs: 0,
    hits: [],
    reset(fault = { kind: "ok" }) {
      state.fault = fault;
      state.hits = [];
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (req.method === "GET" && path.startsWith("/v1/videos/")) return send(res, 200, video(path.split("/")[3]!, "in_progress"));
    state.hits.push(path);
    const body = safeJson(raw);
    const f = state.choose?.(body) ?? state.fault;
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    if (f.kind === "hang") return; // the socket stays open until the gateway gives up
    if (f.kind === "reset") return req.socket.destroy();
    if (f.kind === "status") {
      const message = `Incorrect API key provided: ${key}. See ${state.url}/v1/docs or ask ${state.host} (also http://${state.host}/help).`;
      return send(res, f.status, { error: { message, type: "invalid_request_error", code: null } }, f.status === 429 ? { "retry-after-ms": "10" } : {});
    }
    // OpenAI's answer to one request above the per-request token limit (a 429, yet not a rate limit).
    if (f.kind === "too-large") {
      const message = `Request too large for gpt-4o in organization org-fake on tokens per min (TPM): Limit 30000, Requested ${Number(body?.max_tokens ?? 0) + 20}. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.`;
      return send(res, 429, { error: { message, type: "tokens", param: null, code: "rate_limit_exceeded" } });
    }
    const stream = body?.stream === true;
    if (path === "/v1/chat/completions") return stream ? chatStream(res, f.kind === "midstream") : send(res, 200, chat());
    if (path === "/v1/messages") return stream ? messagesStream(res, f.kind === "midstream") : send(res, 200, message());
    if (path === "/v1/embeddings") return send(res, 200, { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.5, -0.25, 1, 0] }], model: "e", usage: { prompt_tokens: 3, total_tokens: 3 } });
    if (path === "/v1/images/generations") return send(res, 200, { created: 1, size: "1024x1024", data: [{ b64_json: png }] });
    if (path === "/v1/videos") return send(res, 200, video(`video_${state.hits.length}`, "queued"));
    send(res, 404, { error: { message: "no such route" } });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  state.host = `127.0.0.1:${port}`;
  state.url = `http://${state.host}`;
  return state;
}

function chat() {
  return {
    id: "chatcmpl-f",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "fine" } }],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  };
}

function message() {
  return { id: "msg_f", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "fine" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } };
}

function video(id: string, status: string) {
  return { id, object: "video", model: "sora-2", status, progress: 0, created_at: 1, seconds: "10", size: "1280x720" };
}

function chatStream(res: ServerResponse, cut: boolean) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta: unknown, finish: string | null = null, usage?: unknown) =>
    `data: ${JSON.stringify({ id: "chatcmpl-f", object: "chat.completion.chunk", created: 1, model: "m", choices: finish === "usage" ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
  res.write(chunk({ role: "assistant", content: "one" }));
  res.write(chunk({ content: " two" }));
  if (cut) return setTimeout(() => res.socket?.destroy(), 20);
  res.write(chunk({}, "stop"));
  res.write(chunk({}, "usage", { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }));
  res.end("data: [DONE]\n\n");
}

function messagesStream(res: ServerResponse, cut: boolean) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  res.write(ev("message_start", { message: { id: "msg_f", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 0 } } }));
  res.write(ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
  res.write(ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "one two" } }));
  if (cut) return setTimeout(() => res.socket?.destroy(), 20);
  res.write(ev("content_block_stop", { index: 0 }));
  res.write(ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } }));
  res.end(ev("message_stop", {}));
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function safeJson(text: string): Record<string, any> | null {
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return null;
  }
}
