"use client";
/**
 * Calls to the public API through the playground proxy (/api/playground/v1…). Failures come
 * back as FriendlyError values (never thrown), with the gateway's status and code.
 */
import { errorOf, friendlyError, type FriendlyError } from "@/lib/playground/friendly-error";

export type GatewayResult<T> = { ok: true; value: T; headers: Headers } | { ok: false; error: FriendlyError };

export const proxyUrl = (path: string) => `/api/playground${path}`;

export async function gatewayFetch<T>(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<GatewayResult<T>> {
  let res: Response;
  try {
    res = await fetch(proxyUrl(path), {
      method: init.method ?? "GET",
      credentials: "same-origin",
      headers: { ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
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
