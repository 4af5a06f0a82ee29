"use client";
/**
 * One streamed chat reply through the playground proxy, in the protocol the user picked:
 * text arrives as the gateway writes it; Stop aborts the fetch, which aborts the upstream
 * call on the server (only what was generated is billed). After a Stop the stream never
 * reaches its usage event, so the billed numbers are read from the request log.
 */
import { buildChatRequest, mergeUsage, parseChatEvent, SseDecoder, type ChatProtocol, type ChatSettings, type ChatTurn, type StreamUsage } from "@/lib/playground/chat-protocols";
import { friendlyError, type FriendlyError } from "@/lib/playground/friendly-error";
import type { ReplyStats } from "@/lib/playground/conversations";
import type { RequestUsage } from "@/lib/views";

export type { ReplyStats };
import { proxyUrl, readResult } from "./gateway-fetch";

export interface ChatOutcome {
  requestId: string | null;
  stopped: boolean;
  error: FriendlyError | null;
  stats: ReplyStats | null;
}

const toMicro = (usd: number | undefined) => (usd === undefined ? null : Math.round(usd * 1_000_000));

export async function streamChat(
  protocol: ChatProtocol,
  settings: ChatSettings,
  turns: ChatTurn[],
  signal: AbortSignal,
  onText: (text: string) => void,
): Promise<ChatOutcome> {
  const req = buildChatRequest(protocol, settings, turns);
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(proxyUrl(req.path), {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", ...req.headers },
      body: JSON.stringify(req.body),
      signal,
      cache: "no-store",
    });
  } catch {
    return { requestId: null, stopped: signal.aborted, error: signal.aborted ? null : friendlyError(0, "network_error", ""), stats: null };
  }
  const requestId = res.headers.get("x-request-id");
  if (!res.ok || !res.body) {
    const r = await readResult<unknown>(res);
    return { requestId, stopped: false, error: r.ok ? friendlyError(res.status, "empty", "The gateway sent no stream.") : r.error, stats: null };
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const sse = new SseDecoder();
  let usage: StreamUsage | undefined;
  let ttftMs: number | null = null;
  let error: FriendlyError | null = null;
  let stopped = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const msg of sse.push(value)) {
        for (const ev of parseChatEvent(protocol, msg)) {
          if (ev.type === "text") {
            ttftMs ??= Math.round(performance.now() - started);
            onText(ev.text);
          } else if (ev.type === "usage") usage = mergeUsage(usage, ev.usage);
          else if (ev.type === "error") error = friendlyError(ev.status ?? 502, ev.code ?? "upstream_error", ev.message);
        }
      }
    }
  } catch {
    if (signal.aborted) stopped = true;
    else error = friendlyError(0, "network_error", "");
  }
  if (stopped && requestId) {
    const logged = await billedUsage(requestId);
    return {
      requestId,
      stopped,
      error,
      stats: logged ? { inputTokens: logged.inputTokens, outputTokens: logged.outputTokens, costMicroUsd: logged.costMicroUsd, ttftMs, fromLog: true } : null,
    };
  }
  const stats: ReplyStats | null = usage
    ? { inputTokens: usage.inputTokens ?? null, outputTokens: usage.outputTokens ?? null, costMicroUsd: toMicro(usage.costUsd), ttftMs, fromLog: false }
    : null;
  return { requestId, stopped, error, stats };
}

type LoggedUsage = Pick<RequestUsage, "inputTokens" | "outputTokens" | "costMicroUsd">;

/** The request-log row of a stopped request; the gateway settles it a moment after the abort. */
async function billedUsage(requestId: string): Promise<LoggedUsage | null> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const r = await fetch(`/api/playground/requests/${encodeURIComponent(requestId)}`, { credentials: "same-origin", cache: "no-store" });
      if (r.ok) return (await r.json()) as LoggedUsage;
      if (r.status !== 404) return null;
    } catch {
      return null;
    }
    await new Promise((ok) => setTimeout(ok, 250));
  }
  return null;
}
