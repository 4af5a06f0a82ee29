/**
 * A guardrail webhook: one signed POST (the Events signature, x-shim-signature) with a timeout.
 * The receiver answers `{"verdict":"allow"}`, `{"verdict":"block","reason":"…"}` or
 * `{"verdict":"redact","redact":["literal", …]}`; anything else is a failure, which the hook's
 * fail policy decides (docs/guardrails.md).
 */
import { SIGNATURE_HEADER, signatureHeader } from "../../tasks/webhook-signature";
import type { Guard } from "./registry";

export type WebhookVerdict = { verdict: "allow" } | { verdict: "block"; reason: string } | { verdict: "redact"; redact: string[] } | { verdict: "failed"; why: "timeout" | "error" };

export const GUARDRAIL_HEADER = "x-gateway-guardrail";

/**
 * `signal` is the client's (a ClientSignal on the server, not an AbortSignal: decision 0033), so
 * the call gets its own controller, aborted by the timeout or by the client leaving.
 */
export async function callWebhook(guard: Guard, payload: unknown, signal?: Pick<AbortSignal, "aborted" | "addEventListener" | "removeEventListener">): Promise<WebhookVerdict> {
  const hook = guard.webhook!;
  const body = JSON.stringify(payload);
  const ac = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort();
  }, hook.timeoutMs);
  const onAbort = () => ac.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) ac.abort();
  try {
    const res = await fetch(hook.url, {
      method: "POST",
      headers: { "content-type": "application/json", [SIGNATURE_HEADER]: signatureHeader(hook.secret, body), [GUARDRAIL_HEADER]: guard.id },
      body,
      signal: ac.signal,
      redirect: "error",
    });
    const text = await res.text();
    if (!res.ok) return { verdict: "failed", why: "error" };
    const v = JSON.parse(text) as { verdict?: unknown; reason?: unknown; redact?: unknown };
    if (v.verdict === "allow") return { verdict: "allow" };
    if (v.verdict === "block") return { verdict: "block", reason: typeof v.reason === "string" && v.reason ? v.reason.slice(0, 500) : "the webhook refused it" };
    if (v.verdict === "redact" && Array.isArray(v.redact) && v.redact.every((s) => typeof s === "string")) return { verdict: "redact", redact: v.redact as string[] };
    return { verdict: "failed", why: "error" };
  } catch {
    return { verdict: "failed", why: timedOut ? "timeout" : "error" };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
