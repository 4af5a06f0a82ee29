/**
 * Fake OpenAI Responses upstream (reference/responses.md): POST /v1/responses, Bearer key, JSON
 * or SSE (`event:` + `data:` lines, `sequence_number` from 0, no `[DONE]`, usage only in the
 * terminal event). It stores nothing, so it refuses what only a store could serve — a
 * `previous_response_id`, an `item_reference` — with OpenAI's words, as it refuses unknown
 * parameters and reasoning items whose `encrypted_content` another upstream issued ("could
 * not be verified"). Its own reasoning items carry encrypted content naming this fake, and so
 * do the compaction items it answers a `compaction_trigger` with.
 */
import { randomBytes } from "node:crypto";
import { refuseResponses } from "./vendor-rules";
import { startFake, words, type FakeTextUpstream, type Protocol, type TextScript } from "./text-fake-core";

export const OPENAI_RESPONSES_FAKE_KEY = "sk-upstream-fake-responses";

/** Request parameters of the Responses API (openai 6.x ResponseCreateParams). Anything else is a 400. */
const KNOWN = new Set([
  "model", "input", "instructions", "max_output_tokens", "max_tool_calls", "temperature", "top_p", "top_logprobs", "tools",
  "tool_choice", "parallel_tool_calls", "stream", "stream_options", "previous_response_id", "conversation", "store", "text",
  "reasoning", "metadata", "include", "truncation", "user", "safety_identifier", "prompt_cache_key", "prompt_cache_retention",
  "background", "service_tier", "prompt",
]);
const ITEM_TYPES = new Set(["message", "function_call", "function_call_output", "reasoning", "item_reference", "custom_tool_call", "custom_tool_call_output", "compaction", "compaction_trigger"]);

export interface ResponsesFake extends FakeTextUpstream {
  /** Emit a reasoning item (with encrypted content naming this fake) before the answer. */
  reasoning: boolean;
  /** Which fake this is (its encrypted content says so). */
  name: string;
}

const usage = (s: TextScript) =>
  s.rawUsage ??
  (s.usage && {
    input_tokens: s.usage.input,
    input_tokens_details: { cached_tokens: s.usage.cacheRead ?? 0 },
    output_tokens: s.usage.output,
    output_tokens_details: { reasoning_tokens: s.usage.reasoning ?? 0 },
    total_tokens: s.usage.input + s.usage.output,
  });

function refuse(body: any, name: string): string | null {
  if (!body || typeof body !== "object") return "We could not parse the JSON body of your request.";
  for (const k of Object.keys(body)) if (!KNOWN.has(k)) return `Unknown parameter: '${k}'.`;
  if (typeof body.model !== "string") return "Missing required parameter: 'model'.";
  if (body.previous_response_id != null) return `Previous response with id '${body.previous_response_id}' not found.`;
  if (body.max_output_tokens != null && body.max_output_tokens < 16) return `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${body.max_output_tokens} instead.`;
  if (typeof body.input !== "string" && !Array.isArray(body.input)) return "Invalid type for 'input': expected one of a string or an array of input items.";
  const items: any[] = Array.isArray(body.input) ? body.input : [];
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const type = it?.type ?? (it?.role ? "message" : undefined);
    if (!ITEM_TYPES.has(type)) return `Invalid value: '${type}'. Supported values are: ${[...ITEM_TYPES].map((t) => `'${t}'`).join(", ")}.`;
    if (type === "item_reference") return `Item with id '${it.id}' not found.`;
    if (type === "message" && !["user", "assistant", "system", "developer"].includes(it.role)) return `Invalid value for 'input[${i}].role'.`;
    if (type === "function_call" && (typeof it.call_id !== "string" || typeof it.name !== "string" || typeof it.arguments !== "string"))
      return `Missing required parameter: 'input[${i}].call_id'.`;
    if (type === "function_call_output" && typeof it.call_id !== "string") return `Missing required parameter: 'input[${i}].call_id'.`;
    if (type === "compaction_trigger" && i !== items.length - 1) return `Invalid 'input[${i}]': a compaction_trigger must be the last input item.`;
    if (type === "compaction" && !String(it.encrypted_content).startsWith(`enc:${name}:`)) return `The encrypted content for item ${it.id} could not be verified.`;
    if (type === "reasoning") {
      if (typeof it.id !== "string" || !Array.isArray(it.summary)) return `Missing required parameter: 'input[${i}].summary'.`;
      if (it.encrypted_content != null && !String(it.encrypted_content).startsWith(`enc:${name}:`))
        return `The encrypted content for item ${it.id} could not be verified.`;
    }
  }
  for (const [i, t] of ((body.tools ?? []) as any[]).entries())
    if (t.type === "function" && (typeof t.name !== "string" || "function" in t)) return `Missing required parameter: 'tools[${i}].name'.`;
  return null;
}

function output(s: TextScript, fake: { reasoning: boolean; name: string }, n: string, body: any) {
  // Server-side compaction: the trigger is answered with one compaction item, nothing else.
  if (Array.isArray(body.input) && body.input.at(-1)?.type === "compaction_trigger") return [{ id: `cmp_${n}`, type: "compaction", encrypted_content: `enc:${fake.name}:compaction` }];
  const items: Record<string, unknown>[] = [];
  if (fake.reasoning) items.push({ id: `rs_${n}`, type: "reasoning", summary: [], encrypted_content: `enc:${fake.name}:${randomBytes(6).toString("hex")}` });
  if (s.text) items.push({ id: `msg_${n}`, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: s.text, annotations: [], logprobs: [] }] });
  s.toolCalls.forEach((t, i) => items.push({ id: `fc_${n}_${i}`, type: "function_call", status: "completed", call_id: `call_${n}_${i}`, name: t.name, arguments: t.arguments }));
  return items;
}

function response(body: any, n: string, status: string, out: unknown[], u: unknown) {
  return {
    id: `resp_${n}`,
    object: "response",
    created_at: 1741476542,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: out,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage: u,
    user: null,
    metadata: body.metadata ?? {},
  };
}

export async function startFakeOpenAIResponses(opts: { name?: string; apiKey?: string } = {}): Promise<ResponsesFake> {
  const state = { reasoning: false, name: opts.name ?? "fake-responses" };
  let counter = 0;
  const next = () => `${state.name.replace(/[^a-z0-9]/gi, "")}${++counter}${randomBytes(3).toString("hex")}`;
  const protocol: Protocol = {
    match: (path, body) => (path === "/v1/responses" ? { stream: body?.stream === true } : null),
    keyOf: (req) => req.headers.authorization?.replace(/^Bearer /, ""),
    errorBody: (status, message) => ({
      error: { message, type: status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error", param: null, code: null },
    }),
    refuse: (_req, body) => {
      const message = refuse(body, state.name) ?? refuseResponses(body);
      return message === null ? null : { status: 400, message };
    },
    json: (s, body) => {
      const n = next();
      return response(body, n, "completed", output(s, state, n, body), usage(s));
    },
    events: (s, body) => {
      const n = next();
      const out = output(s, state, n, body);
      let seq = 0;
      const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
      const events = [ev("response.created", { response: response(body, n, "in_progress", [], null) }), ev("response.in_progress", { response: response(body, n, "in_progress", [], null) })];
      out.forEach((item, index) => {
        if (item.type === "reasoning" || item.type === "compaction") {
          events.push(ev("response.output_item.added", { output_index: index, item: { ...item, encrypted_content: undefined } }), ev("response.output_item.done", { output_index: index, item }));
        } else if (item.type === "message") {
          const text = s.text;
          events.push(
            ev("response.output_item.added", { output_index: index, item: { id: item.id, type: "message", status: "in_progress", role: "assistant", content: [] } }),
            ev("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } }),
          );
          for (const w of words(text)) events.push(ev("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta: w, logprobs: [] }));
          events.push(
            ev("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] }),
            ev("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text, annotations: [], logprobs: [] } }),
            ev("response.output_item.done", { output_index: index, item }),
          );
        } else {
          const args = String(item.arguments);
          const mid = Math.floor(args.length / 2);
          events.push(ev("response.output_item.added", { output_index: index, item: { ...item, arguments: "", status: "in_progress" } }));
          for (const piece of [args.slice(0, mid), args.slice(mid)]) if (piece) events.push(ev("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: piece }));
          events.push(ev("response.function_call_arguments.done", { item_id: item.id, output_index: index, name: item.name, arguments: args }), ev("response.output_item.done", { output_index: index, item }));
        }
      });
      events.push(ev("response.completed", { response: response(body, n, "completed", out, usage(s)) }));
      return events;
    },
    truncateAt: (events) => Math.max(1, events.length - 2),
  };
  const fake = (await startFake(protocol, opts.apiKey ?? OPENAI_RESPONSES_FAKE_KEY, "/v1")) as ResponsesFake;
  Object.defineProperty(fake, "reasoning", { get: () => state.reasoning, set: (v: boolean) => (state.reasoning = v) });
  Object.defineProperty(fake, "name", { get: () => state.name });
  return fake;
}
