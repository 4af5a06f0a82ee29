/**
 * A Responses API object or event stream (what the stored-responses machinery produces and
 * keeps) → Google's Interactions wire: the `Interaction` resource and its step-typed SSE events
 * (`interaction.created`, `step.start`/`step.delta`/`step.stop`, `interaction.status_update`,
 * `interaction.completed`, `error`), as @google/genai's interactions client reads them.
 * A step's index is the Responses output index, and an event's `event_id` its sequence number,
 * so a resumed stream (`last_event_id`) needs no state from the events before it.
 */
import { createParser } from "eventsource-parser";
import { sseEvent } from "../sse";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

const iso = (seconds: unknown) => new Date((typeof seconds === "number" ? seconds : Date.now() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Responses usage → Interactions usage (output excludes thought tokens, as Gemini counts them). */
export function interactionUsage(u: unknown): Json | undefined {
  if (!isObject(u)) return undefined;
  const input = Number(u.input_tokens ?? 0);
  const output = Number(u.output_tokens ?? 0);
  const thought = Number((u.output_tokens_details as Json | undefined)?.reasoning_tokens ?? 0);
  const cached = Number((u.input_tokens_details as Json | undefined)?.cached_tokens ?? 0);
  const out: Json = { total_input_tokens: input, total_output_tokens: output - thought, total_thought_tokens: thought, total_tokens: input + output };
  if (cached) out.total_cached_tokens = cached;
  return out;
}

function argumentsObject(s: unknown): Json {
  if (typeof s !== "string") return {};
  try {
    const v = JSON.parse(s) as unknown;
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

/** One Responses output item → its Interactions step (null for items an interaction has no step for). */
function step(item: Json): Json | null {
  switch (item.type) {
    case "message": {
      const content = ((item.content as Json[] | undefined) ?? [])
        .map((c) => (c.type === "output_text" ? c.text : c.type === "refusal" ? c.refusal : undefined))
        .filter((t): t is string => typeof t === "string")
        .map((text) => ({ type: "text", text }));
      return { type: "model_output", content };
    }
    case "reasoning": {
      const summary = ((item.summary as Json[] | undefined) ?? []).map((s) => ({ type: "text", text: String(s.text ?? "") }));
      const s: Json = { type: "thought", summary };
      if (typeof item.encrypted_content === "string") s.signature = item.encrypted_content;
      return s;
    }
    case "function_call":
      return { type: "function_call", id: item.call_id, name: item.name, arguments: argumentsObject(item.arguments) };
    default:
      return null;
  }
}

/** A finished run that called a function waits for its result: Google says `requires_action`. */
function status(response: Json): string {
  const s = String(response.status ?? "in_progress");
  const calls = ((response.output as Json[] | undefined) ?? []).some((o) => o.type === "function_call");
  return s === "completed" && calls ? "requires_action" : s;
}

/** The Interaction resource for a stored or just-made Responses object. */
export function toInteraction(response: Json, opts: { steps?: boolean } = {}): Json {
  const out: Json = {
    id: response.id,
    object: "interaction",
    model: response.model,
    status: status(response),
    created: iso(response.created_at),
    updated: iso(response.completed_at ?? response.created_at),
  };
  if (opts.steps !== false) out.steps = ((response.output as Json[] | undefined) ?? []).map(step).filter((s): s is Json => s !== null);
  const usage = interactionUsage(response.usage);
  if (usage) out.usage = usage;
  if (typeof response.previous_response_id === "string") out.previous_interaction_id = response.previous_response_id;
  if (typeof response.instructions === "string") out.system_instruction = response.instructions;
  if (isObject(response.error)) out.errors = [{ code: String(response.error.code ?? "error"), message: String(response.error.message ?? "") }];
  return out;
}

/** The Interactions events for one Responses event (none for events with no counterpart). */
export function interactionEvents(e: Json): string[] {
  const type = String(e.type ?? "");
  const meta = typeof e.sequence_number === "number" ? { event_id: String(e.sequence_number) } : {};
  const ev = (event_type: string, body: Json) => sseEvent(event_type, { event_type, ...body, ...meta });
  const index = Number(e.output_index ?? 0);
  const response = isObject(e.response) ? e.response : null;
  switch (type) {
    case "response.created":
      return response ? [ev("interaction.created", { interaction: toInteraction(response, { steps: false }) })] : [];
    case "response.queued":
    case "response.in_progress":
      return response ? [ev("interaction.status_update", { interaction_id: response.id, status: response.status })] : [];
    case "response.output_item.added": {
      const item = isObject(e.item) ? e.item : {};
      const s = step(item);
      if (!s) return [];
      // The start carries the step's shell; its content arrives as deltas.
      if (s.type === "model_output") s.content = [];
      if (s.type === "thought") s.summary = [];
      if (s.type === "function_call") s.arguments = {};
      return [ev("step.start", { index, step: s })];
    }
    case "response.output_text.delta":
    case "response.refusal.delta":
      return [ev("step.delta", { index, delta: { type: "text", text: String(e.delta ?? "") } })];
    case "response.reasoning_summary_text.delta":
      return [ev("step.delta", { index, delta: { type: "thought_summary", content: { type: "text", text: String(e.delta ?? "") } } })];
    case "response.function_call_arguments.delta":
      return [ev("step.delta", { index, delta: { type: "arguments_delta", arguments: String(e.delta ?? "") } })];
    case "response.output_item.done": {
      const item = isObject(e.item) ? e.item : {};
      if (!step(item)) return [];
      const out: string[] = [];
      if (item.type === "reasoning" && typeof item.encrypted_content === "string")
        out.push(ev("step.delta", { index, delta: { type: "thought_signature", signature: item.encrypted_content } }));
      out.push(ev("step.stop", { index }));
      return out;
    }
    case "response.completed":
    case "response.incomplete":
    case "response.failed":
    case "response.cancelled": {
      if (!response) return [];
      const done = toInteraction(response, { steps: false });
      const out = [ev("interaction.status_update", { interaction_id: done.id, status: done.status, ...(done.usage ? { usage: done.usage } : {}) })];
      if (type === "response.failed" && isObject(response.error))
        out.push(ev("error", { error: { code: String(response.error.code ?? "error"), message: String(response.error.message ?? "") } }));
      out.push(ev("interaction.completed", { interaction: done }));
      return out;
    }
    case "error":
      return [ev("error", { error: { code: String(e.code ?? "error"), message: String(e.message ?? "") } })];
    default:
      return [];
  }
}

/** A Responses SSE body → the Interactions SSE body, event by event. */
export async function* interactionStream(inner: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  const pending: string[] = [];
  const parser = createParser({
    onEvent: (m) => {
      try {
        const e = JSON.parse(m.data) as unknown;
        if (isObject(e)) pending.push(...interactionEvents(e));
      } catch {
        // not an event of ours (a comment or keep-alive)
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of inner) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length) yield pending.splice(0).join("");
  }
}
