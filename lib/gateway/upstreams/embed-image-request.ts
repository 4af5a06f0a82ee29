/**
 * The one HTTP call the embedding and image adapters make: POST JSON, read JSON, with the
 * client's abort signal and a whole-exchange timeout. Failures come back as values with the
 * public error already chosen, never with the upstream's URL or credentials in the message.
 */
import { request } from "undici";
import { errors } from "../errors";
import type { UpstreamFailure } from "./embed-image-types";

export interface PostJsonInput {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  /** The client's signal: a disconnect aborts the upstream call. */
  signal?: AbortSignal;
  /** Upstream answers larger than this are refused (images are a few MiB of base64). */
  maxResponseBytes?: number;
}

export type PostJsonResult = { ok: true; status: number; json: unknown } | UpstreamFailure;

const DEFAULT_MAX_RESPONSE = 64 * 1024 * 1024;

export async function postUpstreamJson(input: PostJsonInput): Promise<PostJsonResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, input.timeoutMs);
  const onClientAbort = () => controller.abort();
  if (input.signal?.aborted) controller.abort();
  input.signal?.addEventListener("abort", onClientAbort, { once: true });
  try {
    const res = await request(input.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...input.headers },
      body: JSON.stringify(input.body),
      signal: controller.signal,
      // The overall timer above is the real limit; these only keep undici from cutting in first.
      headersTimeout: input.timeoutMs + 1000,
      bodyTimeout: input.timeoutMs + 1000,
    });
    const text = await readText(res.body, input.maxResponseBytes ?? DEFAULT_MAX_RESPONSE);
    if (text === null) return failure(errors.upstream("The upstream answer was too large."), false);
    if (res.statusCode < 200 || res.statusCode >= 300) return statusFailure(res.statusCode, text);
    try {
      return { ok: true, status: res.statusCode, json: JSON.parse(text) };
    } catch {
      return failure(errors.upstream("The upstream answered with invalid JSON."), true);
    }
  } catch {
    if (timedOut) return failure(errors.upstreamTimeout(), true);
    if (input.signal?.aborted) return failure(errors.upstream("The client went away.", 499), false);
    return failure(errors.upstream("The upstream could not be reached."), true);
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener("abort", onClientAbort);
  }
}

async function readText(body: AsyncIterable<Buffer>, max: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function failure(error: UpstreamFailure["error"], retryable: boolean): UpstreamFailure {
  return { ok: false, error, retryable };
}

/**
 * 429 and 5xx may heal elsewhere (failover); another 4xx is the request's fault and comes back
 * with the upstream's status and message (DESIGN.md, "Errors").
 */
export function statusFailure(status: number, text: string): UpstreamFailure {
  const message = upstreamMessage(text);
  if (status === 429) return failure(errors.upstream(`The upstream is rate limiting: ${message}`, 429), true);
  if (status >= 500 || status < 400) return failure(errors.upstream(`The upstream failed with status ${status}.`), true);
  return failure(errors.upstream(`The upstream rejected the request: ${message}`, status), false);
}

/** The provider's own message (OpenAI and Gemini both use `error.message`), cut short. */
export function upstreamMessage(text: string): string {
  let message = "";
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string };
    const err = parsed.error;
    message = typeof err === "string" ? err : typeof err?.message === "string" ? err.message : "";
  } catch {
    message = "";
  }
  message = message.replace(/https?:\/\/\S+/g, "[url]").trim();
  if (!message) return "no message";
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

/** Joins a base URL (with or without a trailing slash) and a path. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
