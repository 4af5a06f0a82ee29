/**
 * A text adapter whose every call first gets its auth header (a token that may have been
 * refreshed since the last call), then goes as the inner adapter's would. The header rides
 * with the call's own headers, on a copy: a prepared call is shared by retries.
 */
import type { Outcome } from "../errors";
import type { UpstreamInfo } from "../model-route";
import type { CallOptions, PreparedCall, TextAdapter } from "./text-types";

export type AuthHeaders = (u: UpstreamInfo, signal?: AbortSignal) => Promise<Outcome<Record<string, string>>>;

export function authenticated(inner: TextAdapter, auth: AuthHeaders): TextAdapter {
  const signed = async (call: PreparedCall, opts: CallOptions): Promise<Outcome<PreparedCall>> => {
    const h = await auth(call.route.upstream, opts.signal);
    return h.ok ? { ok: true, value: Object.assign({}, call, { headers: Object.assign({}, call.headers, h.value) }) } : h;
  };
  return Object.assign({}, inner, {
    async complete(call: PreparedCall, opts: CallOptions) {
      const c = await signed(call, opts);
      return c.ok ? inner.complete(c.value, opts) : c;
    },
    async stream(call: PreparedCall, opts: CallOptions) {
      const c = await signed(call, opts);
      return c.ok ? inner.stream(c.value, opts) : c;
    },
  });
}
