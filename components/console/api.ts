/** Browser side of the console JSON routes: one fetch wrapper that turns error bodies into ApiError. */
"use client";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? "GET",
      credentials: "same-origin",
      headers: init.body !== undefined ? { "content-type": "application/json" } : undefined,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: init.signal,
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "network_error", "Could not reach the server. Check your connection and try again.");
  }
  if (res.status === 401 && typeof window !== "undefined") {
    const here = window.location.pathname + window.location.search;
    window.location.assign(`/signin?callbackUrl=${encodeURIComponent(here)}`);
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const e = (data as { error?: { code?: string; message?: string; field?: string; requestId?: string } } | null)?.error;
    throw new ApiError(res.status, e?.code ?? "error", e?.message ?? `Request failed (HTTP ${res.status}).`, e?.field, e?.requestId);
  }
  return data as T;
}

/** The message for a form field from a server error, when the error names that field. */
export function fieldError(err: unknown, field: string): string | undefined {
  return err instanceof ApiError && err.field === field ? err.message : undefined;
}

/** The message for the whole form: server errors that name no field (or a field not on the form). */
export function formError(err: unknown, fields: string[]): string | undefined {
  if (!err) return undefined;
  if (err instanceof ApiError && err.field && fields.includes(err.field)) return undefined;
  return err instanceof Error ? err.message : "Something went wrong.";
}
