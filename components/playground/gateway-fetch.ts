"use client";
/**
 * Calls to the public API through the playground proxy (/api/playground/v1…). Failures come
 * back as FriendlyError values (never thrown), with the gateway's status and code.
 */
import { errorOf, friendlyError, type FriendlyError } from "@/lib/playground/friendly-error";
import type { Err, Ok } from "@/lib/result";

/** The answer and its headers, or the friendly error. */
export type GatewayResult<T> = (Ok<T> & { headers: Headers }) | Err<FriendlyError>;

export const proxyUrl = (path: string) => `/api/playground${path}`;

export async function gatewayFetch<T>(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<GatewayResult<T>> {
  let res: Response;
  const form = init.body instanceof FormData ? init.body : null;
  try {
    res = await fetch(proxyUrl(path), {
      method: init.method ?? "GET",
      credentials: "same-origin",
      // A FormData body (an image edit's files) sets its own multipart content-type and boundary.
      headers: { ...(init.body !== undefined && !form ? { "content-type": "application/json" } : {}), ...init.headers },
      body: form ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
      signal: init.signal,
      cache: "no-store",
    });
  } catch (e) {
    if (init.signal?.aborted) throw e;
    return { ok: false, error: friendlyError(0, "network_error", "") };
  }
  return readResult<T>(res);
}

export async function readResult<T>(res: Response): Promise<GatewayResult<T>> {
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const e = errorOf(res.status, data);
    return { ok: false, error: friendlyError(res.status, e.code, e.message) };
  }
  return { ok: true, value: data as T, headers: res.headers };
}
