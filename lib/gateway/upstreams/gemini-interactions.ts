/**
 * The `gemini-interactions` text upstream: Google's Interactions API, POST
 * {baseUrl}/v1beta/interactions with `x-goog-api-key`. Every protocol is converted to it. The
 * vendor stores each interaction (`store: true`) and keeps its history, so a request whose
 * conversation continues one this process served sends only the new turn with
 * `previous_interaction_id` (gemini-interactions-chain.ts); the vendor then bills the history
 * as input again and reports it in `total_input_tokens`, which is what is charged. If the vendor
 * no longer has that interaction, the request is sent again with the whole history.
 */
import type { CanonicalRequest, OutputPart } from "../canonical";
import type { Inexpressible } from "../conversion/policy";
import type { Outcome } from "../errors";
import { joinUrl } from "./http";
import { chainScope, findChain, forgetChain, rememberChain } from "./gemini-interactions-chain";
import { interactionSettings, interactionSteps } from "./gemini-interactions-request";
import { createInteractionsDecoder, fromInteraction } from "./gemini-interactions-response";
import { firstCallDecoder, firstCallOnly, oneCallEnforced } from "./first-call-only";
import { httpComplete, httpStream, type HttpTarget } from "./text-http-call";
import type { PreparedCall, TextAdapter } from "./text-types";
import type { ModelRoute } from "../model-route";
import type { Ok } from "../../result";

type Json = Record<string, unknown>;

/** What a chained call needs besides its body: the whole-history body to fall back to, and the chain. */
interface Chained {
  scope: string | null;
  full: Json;
  chainKey?: string;
}
// Keyed by the body object: a call is copied on its way (authenticated.ts), its body is not.
const chained = new WeakMap<object, Chained>();

function target(route: ModelRoute, stream: boolean): HttpTarget {
  const headers: Record<string, string> = { "content-type": "application/json", accept: stream ? "text/event-stream" : "application/json" };
  if (route.upstream.apiKey) headers["x-goog-api-key"] = route.upstream.apiKey;
  return { url: joinUrl(route.upstream.baseUrl, "v1beta/interactions"), headers };
}

function remember(call: PreparedCall, output: OutputPart[], vendorId: string): void {
  const c = chained.get(call.body as object);
  if (c?.scope) rememberChain(c.scope, call.request.messages, output, vendorId);
}

/**
 * A chained call the vendor refused as a client error (its previous interaction expired or was
 * deleted: 404, or 400 naming it) is sent once more with the whole history.
 */
async function withFallback<T>(call: PreparedCall, send: (c: PreparedCall) => Promise<Outcome<T>>): Promise<Outcome<T>> {
  const first = await send(call);
  const c = chained.get(call.body as object);
  if (first.ok || !c?.chainKey || (first.error.status !== 404 && first.error.status !== 400)) return first;
  forgetChain(c.chainKey);
  const full = { ...c.full };
  chained.set(full, { scope: c.scope, full });
  return send({ ...call, body: full });
}

function build(route: ModelRoute, req: CanonicalRequest, scope: string | null): Ok<Json> | Inexpressible {
  const settings = interactionSettings(req, route.upstreamModel);
  if (!settings.ok) return settings;
  const all = interactionSteps(req.messages);
  if (!all.ok) return all;
  const full: Json = { ...settings.value, input: all.value, store: true, ...(req.stream ? { stream: true } : {}) };
  const chain = scope ? findChain(scope, req.messages) : null;
  if (!chain) {
    chained.set(full, { scope, full });
    return { ok: true, value: full };
  }
  const turn = interactionSteps(req.messages.slice(chain.from));
  if (!turn.ok) return turn;
  const body: Json = { ...full, input: turn.value, previous_interaction_id: chain.previousId };
  chained.set(body, { scope, full, chainKey: chain.key });
  return { ok: true, value: body };
}

export const geminiInteractions: TextAdapter = {
  // parallel_tool_calls: no switch upstream; the gateway keeps the first call (first-call-only.ts).
  capabilities: { hints: new Set(["temperature", "top_p", "seed", "parallel_tool_calls"]), hostedTools: new Set() },
  // Images and documents go inline or by URI, as the Interactions API takes them.
  inlineMedia: { images: true, documents: true, maxInlineBytes: 20 * 1024 * 1024, limitName: "Gemini's 20 MB inline request limit" },
  prepare(route, req, _raw, headers) {
    const body = build(route, req, chainScope(headers, route.upstream.id, route.upstreamModel));
    if (!body.ok) return body;
    return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: body.value, request: req, passthrough: false, enforced: oneCallEnforced(req) } };
  },
  async complete(call, opts) {
    const out = await withFallback(call, (c) =>
      httpComplete(c, opts, target(c.route, false), fromInteraction, (j) => {
        j.model = call.publicModel;
      }),
    );
    // The vendor's interaction holds every call it made: a client's history with only the first
    // one (one call at a time, enforced below) does not continue it, and goes whole.
    if (out.ok) remember(call, out.value.response.content, out.value.response.id);
    return firstCallOnly(call, Promise.resolve(out));
  },
  stream(call, opts) {
    return withFallback(call, (c) => {
      const d = createInteractionsDecoder(call.publicModel, (turn) => {
        const output: OutputPart[] = [{ type: "text", text: turn.text }, ...turn.calls.map((k) => ({ type: "tool_call" as const, id: k.id, name: k.name, arguments: k.arguments || "{}" }))];
        remember(c, output, turn.id);
      });
      return httpStream(c, opts, target(c.route, true), firstCallDecoder(c, { push: (data, event) => d.push(data, event), end: () => d.end() }));
    });
  },
};
