/**
 * Shared machinery of the fake text upstreams (OpenAI chat, Anthropic messages, Gemini
 * generateContent): a real node:http server on 127.0.0.1 port 0 that records every request and
 * follows a per-test script. Each fake renders the wire format itself, from
 * the vendors' documented wire formats, independently of the gateway's own codecs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedRequest {
  method: string;
  /** Path with query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** The client (the gateway) closed the connection before the answer was complete. */
  aborted?: boolean;
  /** The vendor rule the request broke (answered with this status and message). */
  refused?: { status: number; message: string };
  /** The script the request was answered with (a 200). */
  answered?: TextScript;
  /** The stream stopped sending (script.hangAfterEvents) and waits for the client to go. */
  stalled?: boolean;
}

export interface TextScript {
  /** Reply text, streamed one word per event. */
  text: string;
  /**
   * Tool calls to make instead of (or after) the text; arguments as a JSON string (the raw input
   * for a Responses `custom` tool). `id` defaults to a fixed one per position; `signature` is the
   * Gemini thoughtSignature put on the call's part.
   */
  toolCalls: Array<{ name: string; arguments: string; id?: string; signature?: string }>;
  /** Anthropic: a signed thinking block before the content. */
  thinking?: { thinking: string; signature: string };
  /** A tool loop: make the tool calls only while the request carries no tool result yet, then answer text. */
  toolCallsUntilResult?: boolean;
  /** Gemini: a thought part (reasoning text) before the content. */
  reasoning?: string;
  /** Responses: the one `compaction` output item a `compaction_trigger` is answered with. */
  compaction?: Record<string, unknown>;
  /**
   * Gemini image models: images drawn after the text, each an `inlineData` part of its own (one
   * chunk each when streamed), counted in candidatesTokensDetails as IMAGE tokens (`tokens`,
   * 1290 by default: a 1024×1024 image). `usage.output` includes them.
   */
  images?: Array<{ mimeType: string; data: string; tokens?: number }>;
  /**
   * Usage to report; null = none at all (the gateway must count itself). `input` is ALL prompt
   * tokens and `output` ALL output tokens; the cache classes are parts of input, reasoning of
   * output. Each fake renders them in its vendor's fields.
   */
  usage: { input: number; output: number; cacheRead?: number; cacheWrite5m?: number; cacheWrite1h?: number; reasoning?: number } | null;
  /**
   * The vendor's usage object sent verbatim instead (hostile counts: "5", -1, 7.5…). A string
   * `"__raw:1e999"` is written as the bare JSON text after the colon (JSON.stringify cannot).
   */
  rawUsage?: Record<string, unknown>;
  /** Answer the next N requests with this status, then behave normally. */
  failTimes: number;
  failStatus: number;
  /** Retry-After (seconds) on those failures. */
  retryAfter?: number;
  /** retry-after-ms (OpenAI's) on those failures. */
  retryAfterMs?: number;
  /** Gemini: a google.rpc.RetryInfo detail with this retryDelay ("2s") in those failures' body. */
  retryDelay?: string;
  /** A permanent error status (400, 401…) with the protocol's error body. */
  errorStatus?: number;
  errorMessage: string;
  /** Never answer (no head). */
  hang: boolean;
  /** Streams: stop sending (connection kept open) after this many events. */
  hangAfterEvents?: number;
  /** Streams: destroy the socket after this many events. */
  resetAfterEvents?: number;
  /** "json": invalid JSON body or event; "truncate": the stream ends without its final events. */
  malformed?: "json" | "truncate";
  /** Pause between streamed events. */
  eventDelayMs: number;
  /** Pause before answering at all (head included). */
  responseDelayMs: number;
}

export const DEFAULT_SCRIPT: TextScript = {
  text: "Hello from the fake upstream!",
  toolCalls: [],
  usage: { input: 11, output: 5 },
  failTimes: 0,
  failStatus: 500,
  errorMessage: "fake upstream error",
  hang: false,
  eventDelayMs: 0,
  responseDelayMs: 0,
};

export interface FakeTextUpstream {
  /** Base URL the gateway config expects for this protocol (OpenAI: with /v1). */
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  script: TextScript;
  /** Replace the script (unnamed fields back to defaults) and forget recorded requests. */
  reset(script?: Partial<TextScript>): void;
  /** Requests that reached the generation endpoint. */
  generationRequests(): RecordedRequest[];
  /** Most generation requests in flight at once since the last reset. */
  maxInFlight(): number;
  close(): Promise<void>;
}

export interface Protocol {
  /** Does this path ask for generation; if so, streamed? null = 404. */
  match(path: string, body: any): { stream: boolean } | null;
  /** The key sent in the protocol's header, or undefined. */
  keyOf(req: IncomingMessage, url: URL): string | undefined;
  errorBody(status: number, message: string, script?: TextScript): unknown;
  json(script: TextScript, body: any): unknown;
  /** The SSE events in order: each string is one complete event ending in a blank line. */
  events(script: TextScript, body: any): string[];
  /** The event an unterminated stream ends on (everything before the final events). */
  truncateAt(events: string[]): number;
  /** A documented refusal of the vendor (status and message), checked before the script runs. */
  refuse?(req: IncomingMessage, body: any, path: string): { status: number; message: string } | null;
  /** The script for this request (default: the fake's current script). */
  scriptFor?(script: TextScript, body: any, path: string): TextScript;
}

/** A tool result in any of the vendors' request shapes. */
const TOOL_RESULT = /"role":\s*"tool"|"type":\s*"tool_result"|"functionResponse"|"function_call_output"/;

export function words(text: string): string[] {
  return text.split(/(?=\s)/).filter((w) => w !== "");
}

export async function startFake(protocol: Protocol, apiKey: string, baseSuffix: string): Promise<FakeTextUpstream> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let script: TextScript = { ...DEFAULT_SCRIPT };
  let generation = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      /* keep the text */
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const rec: RecordedRequest = { method: req.method ?? "", path: url.pathname + url.search, headers: req.headers, body };
    requests.push(rec);
    const m = req.method === "POST" ? protocol.match(url.pathname + url.search, body) : null;
    if (!m) return send(res, 404, protocol.errorBody(404, "not found"));
    generation++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => {
      inFlight--;
      if (!res.writableFinished) rec.aborted = true;
    });
    if (script.responseDelayMs) await new Promise((r) => setTimeout(r, script.responseDelayMs));
    if (protocol.keyOf(req, url) !== apiKey) return send(res, 401, protocol.errorBody(401, "invalid api key"));
    if (script.hang) return; // the socket stays open until the client gives up or close()
    if (script.failTimes > 0) {
      script.failTimes--;
      const headers: Record<string, string> = {};
      if (script.retryAfter !== undefined) headers["retry-after"] = String(script.retryAfter);
      if (script.retryAfterMs !== undefined) headers["retry-after-ms"] = String(script.retryAfterMs);
      return send(res, script.failStatus, protocol.errorBody(script.failStatus, script.errorMessage, script), headers);
    }
    if (script.errorStatus) return send(res, script.errorStatus, protocol.errorBody(script.errorStatus, script.errorMessage));
    const turn = script.toolCallsUntilResult && TOOL_RESULT.test(raw) ? { ...script, toolCalls: [] } : script;
    const refusal = protocol.refuse?.(req, body, rec.path);
    if (refusal) {
      rec.refused = refusal;
      return send(res, refusal.status, protocol.errorBody(refusal.status, refusal.message));
    }
    const s = protocol.scriptFor ? protocol.scriptFor(turn, body, rec.path) : turn;
    rec.answered = s;
    if (!m.stream) {
      if (script.malformed === "json") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end("{not json");
      }
      return send(res, 200, protocol.json(s, body));
    }
    let events = protocol.events(s, body);
    if (script.malformed === "json") events = [events[0]!, "data: {not json\n\n", ...events.slice(1)];
    if (script.malformed === "truncate") events = events.slice(0, protocol.truncateAt(events));
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.flushHeaders();
    for (let i = 0; i < events.length; i++) {
      if (script.resetAfterEvents !== undefined && i >= script.resetAfterEvents) return req.socket.destroy();
      if (script.hangAfterEvents !== undefined && i >= script.hangAfterEvents) return void (rec.stalled = true);
      if (res.destroyed) return;
      res.write(rawTokens(events[i]!));
      if (script.eventDelayMs) await new Promise((r) => setTimeout(r, script.eventDelayMs));
    }
    res.end();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}${baseSuffix}`,
    apiKey,
    requests,
    get script() {
      return script;
    },
    set script(s: TextScript) {
      script = s;
    },
    reset(s: Partial<TextScript> = {}) {
      script = { ...DEFAULT_SCRIPT, ...s };
      requests.length = 0;
      generation = 0;
      maxInFlight = inFlight;
    },
    maxInFlight: () => maxInFlight,
    generationRequests() {
      return requests.filter((r) => protocol.match(r.path, r.body) !== null);
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(rawTokens(JSON.stringify(body)));
}

/** `"__raw:1e999"` → `1e999`: JSON number texts JSON.stringify cannot produce. */
function rawTokens(json: string): string {
  return json.replace(/"__raw:([^"\\]*)"/g, "$1");
}
