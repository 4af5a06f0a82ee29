/** The part every HTTP text adapter shares: send (http.ts), then parse JSON or decode SSE. */
import type { CanonicalResponse } from "../canonical";
import { badAnswer, type Outcome } from "../errors";
import { toJson } from "../raw-json";
import { readSseAs } from "./sse-reader";
import { callUpstream, readJson, type UpstreamResponse } from "./http";
import type { CallOptions, CompleteResult, PreparedCall, UpstreamChunk } from "./text-types";

export interface HttpTarget {
  url: string;
  headers: Record<string, string>;
}

export interface ChunkDecoder {
  /** One SSE message → its chunk; throws UpstreamStreamError on garbage or an upstream error event. */
  push(data: string, event: string | undefined): UpstreamChunk;
  /** The body ended; returns a final chunk or null, or throws when the stream was cut short. */
  end(): UpstreamChunk | null;
}

export async function httpComplete(
  call: PreparedCall,
  opts: CallOptions,
  target: HttpTarget,
  parse: (json: Record<string, unknown>) => CanonicalResponse | null,
  rewriteModel: (json: Record<string, unknown>) => void,
): Promise<Outcome<CompleteResult>> {
  const opened = await callUpstream({ url: target.url, headers: target.headers, body: toJson(call.body, call.source), signal: opts.signal, timeoutMs: opts.timeoutMs, secret: call.route.upstream.apiKey });
  if (!opened.ok) return opened;
  const json = await readJson(opened.value, opts.signal);
  if (!json.ok) return json;
  return decodeAnswer(json.value, parse, rewriteModel);
}

/** An upstream's whole answer (read over HTTP, or a vendor batch's result line) → the canonical response and the raw JSON. */
export function decodeAnswer(json: Record<string, unknown>, parse: (json: Record<string, unknown>) => CanonicalResponse | null, rewriteModel: (json: Record<string, unknown>) => void): Outcome<CompleteResult> {
  const response = parse(json);
  if (!response) return badAnswer("The upstream answered with an unexpected shape.");
  rewriteModel(json);
  return { ok: true, value: { response, raw: json } };
}

export async function httpStream(
  call: PreparedCall,
  opts: CallOptions,
  target: HttpTarget,
  decoder: ChunkDecoder,
): Promise<Outcome<AsyncIterable<UpstreamChunk>>> {
  const opened = await callUpstream({
    url: target.url,
    headers: Object.assign({}, target.headers, { accept: "text/event-stream" }), // not a spread: decision 0033
    body: toJson(call.body, call.source),
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
    secret: call.route.upstream.apiKey,
  });
  if (!opened.ok) return opened;
  return { ok: true, value: chunks(opened.value.body, opts.signal, decoder) };
}

/**
 * The upstream's events as decoded chunks: each SSE message through the decoder inside the one
 * generator that reads the body (sse-reader.ts `readSseAs`, which also destroys the body when
 * the client stops early).
 */
function chunks(body: UpstreamResponse["body"], signal: AbortSignal, decoder: ChunkDecoder): AsyncGenerator<UpstreamChunk> {
  return readSseAs(body, signal, (msg) => decoder.push(msg.data, msg.event), () => decoder.end());
}
