/**
 * The Responses API over WebSocket (the transport Codex tries first): `GET /v1/responses` with
 * the key upgrades; each `{"type":"response.create", …}` frame is one `POST /v1/responses`
 * through the gateway entry — key check, rate limit, hold, settle, log row, exactly as over
 * HTTP — served one after another, its SSE events sent as text frames. An error before the
 * first event is an `error` frame; a refused key (revoked, 401/403) or money (402) then closes
 * the socket. As on OpenAI's, `previous_response_id` may name the socket's last response even
 * with `store: false` (Codex sends only the new items): it is expanded here from memory.
 * docs/responses.md, "WebSocket transport".
 */
import { createParser } from "eventsource-parser";
import { authenticate } from "../gateway/auth";
import { handleGatewayRequest } from "../gateway/entry";
import { errorResponse } from "../gateway/errors";
import type { GatewayRequest, GatewayResponse } from "../gateway/http";
import { metrics } from "../metrics";
import { ClientSignal } from "../net/client-signal";
import { nowSeconds, protocolId } from "../gateway/protocols/ids";

/** What the session needs of a socket (the `ws` package's WebSocket has it). */
export interface ResponsesSocket {
  send(data: string): void;
  close(code: number, reason: string): void;
}

/** Close code for a key or balance that no longer serves (RFC 6455 §7.4.1: policy violation). */
export const CLOSE_REFUSED = 1008;

/** A socket with no frame and no response in flight this long is closed (Codex reconnects). */
export const IDLE_CLOSE_MS = 15 * 60_000;

type Frame = Record<string, unknown> & { type?: unknown };

/** `GET /v1/responses` asking for a WebSocket (anything else there is answered over HTTP: 426). */
export function isResponsesSocket(method: string | undefined, url: string, upgrade: string | undefined): boolean {
  const path = url.split("?")[0]!.replace(/\/$/, "");
  return method === "GET" && path === "/v1/responses" && upgrade?.toLowerCase() === "websocket";
}

/** The key is checked before the upgrade: a refusal is an ordinary HTTP answer (401, 403, 429). */
export async function admitSocket(upgrade: Pick<GatewayRequest, "headers" | "remoteAddress">): Promise<GatewayResponse | null> {
  const req: GatewayRequest = { method: "GET", url: new URL("http://localhost/v1/responses"), headers: upgrade.headers, body: null, signal: AbortSignal.timeout(60_000), remoteAddress: upgrade.remoteAddress };
  const auth = await authenticate(req);
  return auth.ok ? null : errorResponse(auth.error);
}

/** Upgrade and WebSocket headers that must not reach the POST each frame becomes. */
const HOP = /^(upgrade|connection|sec-websocket-.*|content-length|transfer-encoding)$/;

export class ResponsesSession {
  private queue: Promise<void> = Promise.resolve();
  /** The socket's last completed response: its id and every item of its conversation. */
  private last: { id: string; items: unknown[] } | null = null;
  private closed = false;
  private pending = 0;
  private idle: NodeJS.Timeout | null = null;
  readonly signal = new ClientSignal();
  private readonly headers: GatewayRequest["headers"] = {};

  constructor(
    private readonly socket: ResponsesSocket,
    private readonly upgrade: Pick<GatewayRequest, "headers" | "remoteAddress">,
  ) {
    for (const [k, v] of Object.entries(upgrade.headers)) if (!HOP.test(k)) this.headers[k] = v;
    this.headers["content-type"] = "application/json";
    // The WebSocket beta flag describes this socket, not the HTTP call an upstream gets.
    if (String(this.headers["openai-beta"] ?? "").includes("responses_websockets")) delete this.headers["openai-beta"];
    metrics().responseSockets.inc();
    this.arm();
  }

  /** A text frame from the client; served after the ones before it. */
  receive(data: string): void {
    this.pending++;
    this.arm();
    this.queue = this.queue
      .then(() => (this.closed ? undefined : this.serve(data)))
      .catch(() => this.close(1011, "internal error"))
      .finally(() => (this.pending--, this.arm()));
  }

  /** The client went away: the response in flight is aborted (its hold settles as a hang-up). */
  gone(): void {
    this.closed = true;
    this.arm();
    this.signal.abort();
  }

  /** The idle timer runs only while nothing is asked or in flight. */
  private arm() {
    if (this.idle) clearTimeout(this.idle);
    this.idle = this.closed || this.pending > 0 ? null : setTimeout(() => this.close(1000, "idle"), IDLE_CLOSE_MS).unref();
  }

  private close(code: number, reason: string) {
    if (this.closed) return;
    this.closed = true;
    this.arm();
    this.socket.close(code, reason);
  }

  private async serve(data: string): Promise<void> {
    let frame: Frame;
    try {
      frame = JSON.parse(data) as Frame;
    } catch {
      return this.error(400, { type: "invalid_request", code: "invalid_json", message: "A frame must be a JSON object." });
    }
    if (frame?.type === "response.processed") return; // Codex's acknowledgement: nothing to do
    if (frame?.type === "response.create") metrics().responseSocketFrames.inc();
    else return this.error(400, { type: "invalid_request", code: "invalid_request", message: 'A frame must be {"type":"response.create", …} with the body of POST /v1/responses.', param: "type" });
    const body: Record<string, unknown> = Object.assign({}, frame, { stream: true });
    delete body.type;
    delete body.generate;
    const input = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : Array.isArray(body.input) ? body.input : null;
    if (input && this.last && body.previous_response_id === this.last.id) {
      body.input = [...this.last.items, ...input];
      delete body.previous_response_id;
    }
    if (frame.generate === false) return this.warmup(body);
    const res = await handleGatewayRequest(
      { method: "POST", url: new URL("http://localhost/v1/responses"), headers: this.headers, body: once(Buffer.from(JSON.stringify(body))), signal: this.signal, remoteAddress: this.upgrade.remoteAddress },
      { settleAfterReply: true },
    );
    if (res.status !== 200) return this.refused(res);
    await this.relay(res, Array.isArray(body.input) ? (body.input as unknown[]) : (input ?? []));
  }

  /**
   * `generate: false` (Codex's warm-up): a response with no output, at no cost and without an
   * upstream call, that the next frame continues with `previous_response_id`.
   */
  private warmup(body: Record<string, unknown>): void {
    const response = { id: protocolId.response(), object: "response", created_at: nowSeconds(), status: "completed", model: body.model ?? null, output: [], usage: null, store: false, previous_response_id: null };
    this.socket.send(JSON.stringify({ type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress" } }));
    this.socket.send(JSON.stringify({ type: "response.completed", sequence_number: 1, response }));
    this.last = { id: response.id, items: Array.isArray(body.input) ? (body.input as unknown[]) : [] };
  }

  /** The SSE events as text frames; the completed response is remembered for the next frame. */
  private async relay(res: GatewayResponse, input: unknown[]): Promise<void> {
    const parser = createParser({
      onEvent: (m) => {
        if (this.closed) return;
        this.socket.send(m.data);
        if (m.data.includes('"response.completed"')) {
          const ev = JSON.parse(m.data) as { type?: string; response?: { id?: string; output?: unknown[] } };
          if (ev.type === "response.completed" && typeof ev.response?.id === "string") this.last = { id: ev.response.id, items: [...input, ...(ev.response.output ?? [])] };
        }
      },
    });
    const body = res.body;
    if (typeof body === "string") return parser.feed(body);
    if (body && typeof body === "object" && Symbol.asyncIterator in body)
      for await (const chunk of body as AsyncIterable<string | Uint8Array>) {
        if (this.closed) break; // leaving the loop ends the generator: the upstream is aborted
        parser.feed(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      }
  }

  /** The gateway's refusal as an `error` frame; a key or balance that cannot serve ends the socket. */
  private refused(res: GatewayResponse): void {
    let error: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(String(res.body)) as { error?: Record<string, unknown> };
      error = parsed.error ?? {};
    } catch {
      // not JSON: the status says enough
    }
    this.error(res.status, error, res.headers);
    if (res.status === 401 || res.status === 402 || res.status === 403) this.close(CLOSE_REFUSED, String(error.code ?? res.status).slice(0, 100));
  }

  private error(status: number, error: Record<string, unknown>, headers?: Record<string, string>): void {
    if (this.closed) return;
    const retryAfter = headers?.["retry-after"];
    this.socket.send(JSON.stringify({ type: "error", status, error, ...(retryAfter ? { headers: { "retry-after": retryAfter } } : {}) }));
  }
}

async function* once(chunk: Uint8Array): AsyncGenerator<Uint8Array> {
  yield chunk;
}
