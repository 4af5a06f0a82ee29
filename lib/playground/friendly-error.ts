/**
 * Gateway errors in words a person understands, with the next step. Works from the HTTP
 * status and the error code of any of the envelopes the playground can receive (OpenAI,
 * Anthropic, the console's own).
 */
export interface FriendlyError {
  title: string;
  detail: string;
  /** The next step as a link inside the console, when there is one. */
  action?: { href: string; label: string };
  code: string;
  status: number;
}

export function errorOf(status: number, body: unknown): { code: string; message: string } {
  const e = (body as { error?: { code?: unknown; type?: unknown; message?: unknown; status?: unknown } } | null)?.error;
  const code = typeof e?.code === "string" ? e.code : typeof e?.status === "string" ? e.status : typeof e?.type === "string" ? e.type : `http_${status}`;
  const message = typeof e?.message === "string" ? e.message : `The request failed (HTTP ${status}).`;
  return { code, message };
}

export function friendlyError(status: number, code: string, message: string): FriendlyError {
  const base = { code, status };
  if (status === 401 || code === "unauthenticated") return { ...base, title: "You are signed out", detail: "Sign in again to keep using the playground.", action: { href: "/signin?callbackUrl=%2Fplayground", label: "Sign in" } };
  if (status === 402 || code === "insufficient_user_quota" || code === "key_limit_exceeded")
    return { ...base, title: "Not enough balance", detail: "Your balance cannot cover this request. Nothing was charged. Add credit to continue.", action: { href: "/billing", label: "Go to Billing" } };
  if (code === "account_disabled" || status === 403) return { ...base, title: "This account is disabled", detail: "Ask an administrator to enable it again." };
  if (code === "model_not_found") return { ...base, title: "Model not available", detail: "This model does not exist or your account may not use it. Pick another model from the list." };
  if (code === "model_not_supported") return { ...base, title: "Wrong kind of model", detail: `${message} Pick a model of the right kind.` };
  if (status === 429 || code === "rate_limit_exceeded") return { ...base, title: "Too many requests", detail: "You hit your account's rate limit. Wait a moment and try again." };
  if (status === 413) return { ...base, title: "Request too large", detail: "Shorten the prompt or the conversation and try again." };
  if (status === 400 || code === "invalid_request") return { ...base, title: "The request was refused", detail: `${message.replace(/`/g, "")} Change the settings and send again.` };
  if (status === 504 || code === "upstream_timeout") return { ...base, title: "The model took too long", detail: "The provider did not answer in time. Nothing was charged for the missing answer; try again." };
  if (status === 502 || code === "upstream_error") return { ...base, title: "The model provider failed", detail: "The upstream provider returned an error. Anything not generated was not charged; try again in a moment." };
  if (status === 0) return { ...base, title: "Connection lost", detail: "Could not reach the gateway. Check your connection and try again." };
  return { ...base, title: "Something went wrong", detail: `${message} Try again; if it keeps failing, contact support with the request id.` };
}
