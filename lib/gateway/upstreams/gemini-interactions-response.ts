/** Google's Interactions API answer (an `Interaction`, or its step-typed SSE events) → canonical. */
import type { CanonicalResponse, OutputPart, StopReason, StreamEvent, Usage } from "../canonical";
import { errors } from "../errors";
import { makeUsage } from "../usage";
import { invalidUpstreamEvent, UpstreamStreamError } from "./sse-reader";
import type { UpstreamChunk } from "./text-types";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Interactions usage: `total_input_tokens` counts the whole prompt (the history the vendor keeps
 * included), cached tokens a part of it; `total_output_tokens` excludes `total_thought_tokens`.
 */
export function usageFromInteraction(u: unknown): Usage | null {
  if (!isObject(u)) return null;
  const out = u.total_output_tokens;
  const thought = u.total_thought_tokens;
  const outputTotal = typeof out === "number" ? out + (typeof thought === "number" ? thought : 0) : out;
  return makeUsage({ inputTotal: u.total_input_tokens, cacheRead: u.total_cached_tokens, outputTotal, reasoning: thought }, u);
}

function stopOf(status: unknown, sawCall: boolean): StopReason {
  if (status === "incomplete" || status === "budget_exceeded") return "max_tokens";
  return sawCall || status === "requires_action" ? "tool_calls" : "end";
}

/** The steps this turn produced: those after the last `user_input`/`function_result` (a response may echo its input). */
function outputSteps(steps: Json[]): Json[] {
  let from = 0;
  steps.forEach((s, i) => {
    if (s.type === "user_input" || s.type === "function_result") from = i + 1;
  });
  return steps.slice(from);
}

export function fromInteraction(json: Json): CanonicalResponse | null {
  if (typeof json.id !== "string") return null;
  const steps = Array.isArray(json.steps) ? (json.steps as unknown[]).filter(isObject) : [];
  const content: OutputPart[] = [];
  let sawCall = false;
  for (const s of outputSteps(steps)) {
    if (s.type === "model_output" && Array.isArray(s.content)) {
      for (const c of s.content as unknown[]) if (isObject(c) && c.type === "text" && typeof c.text === "string" && c.text) content.push({ type: "text", text: c.text });
    } else if (s.type === "function_call") {
      sawCall = true;
      content.push({ type: "tool_call", id: String(s.id ?? ""), name: String(s.name ?? ""), arguments: JSON.stringify(isObject(s.arguments) ? s.arguments : {}) });
    } else if (s.type === "thought") {
      const text = (Array.isArray(s.summary) ? (s.summary as unknown[]) : []).map((c) => (isObject(c) && typeof c.text === "string" ? c.text : "")).join("");
      // The signature is this vendor's interaction state, kept with the interaction: it is not carried to clients.
      if (text) content.push({ type: "reasoning", text, origin: "other" });
    }
  }
  return { id: json.id, model: String(json.model ?? ""), content, stopReason: stopOf(json.status, sawCall), usage: usageFromInteraction(json.usage) ?? makeUsage({}) };
}

/** What a stream produced, for the chain (the vendor's id and the assistant turn to remember it by). */
export interface StreamedTurn {
  id: string;
  text: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
}

/** Stateful decoder of the step-typed events; `onDone` hears the finished turn. */
export function createInteractionsDecoder(publicModel: string, onDone: (turn: StreamedTurn) => void) {
  let started = false;
  let finished = false;
  const turn: StreamedTurn = { id: "", text: "", calls: [] };
  // Step index → what it is (a call's position among the calls, or a thought's summary).
  const stepCall = new Map<number, number>();
  const thoughts = new Set<number>();
  const fail = (message: unknown) => new UpstreamStreamError(errors.upstream(`The upstream failed mid-stream: ${String(message ?? "unknown error")}`), false);

  return {
    push(data: string, event?: string): UpstreamChunk {
      let json: Json;
      try {
        json = JSON.parse(data) as Json;
      } catch {
        throw invalidUpstreamEvent("not JSON");
      }
      if (!isObject(json)) throw invalidUpstreamEvent("not a JSON object");
      const type = typeof json.event_type === "string" ? json.event_type : event;
      const events: StreamEvent[] = [];
      const interaction = isObject(json.interaction) ? json.interaction : null;
      if (!started) {
        started = true;
        turn.id = String(interaction?.id ?? json.interaction_id ?? "");
        events.push({ type: "start", id: turn.id, model: publicModel });
      }
      const index = Number(json.index ?? 0);
      switch (type) {
        case "error":
          throw fail(isObject(json.error) ? json.error.message : undefined);
        case "step.start": {
          const step = isObject(json.step) ? json.step : {};
          if (step.type === "function_call") {
            const at = turn.calls.length;
            const call = { id: String(step.id ?? ""), name: String(step.name ?? ""), arguments: "" };
            turn.calls.push(call);
            stepCall.set(index, at);
            events.push({ type: "tool_call_start", index: at, id: call.id, name: call.name });
            if (isObject(step.arguments) && Object.keys(step.arguments).length) {
              call.arguments = JSON.stringify(step.arguments);
              events.push({ type: "tool_call_delta", index: at, arguments: call.arguments });
            }
          } else if (step.type === "thought") thoughts.add(index);
          else if (step.type === "model_output" && Array.isArray(step.content))
            for (const c of step.content as unknown[])
              if (isObject(c) && c.type === "text" && typeof c.text === "string" && c.text) {
                turn.text += c.text;
                events.push({ type: "text_delta", text: c.text });
              }
          break;
        }
        case "step.delta": {
          const d = isObject(json.delta) ? json.delta : {};
          if (d.type === "text" && typeof d.text === "string" && d.text) {
            turn.text += d.text;
            events.push({ type: "text_delta", text: d.text });
          } else if (d.type === "arguments_delta" && typeof d.arguments === "string" && d.arguments) {
            const at = stepCall.get(index);
            if (at !== undefined) {
              turn.calls[at]!.arguments += d.arguments;
              events.push({ type: "tool_call_delta", index: at, arguments: d.arguments });
            }
          } else if (d.type === "thought_summary" && isObject(d.content) && typeof d.content.text === "string" && d.content.text)
            events.push({ type: "reasoning_delta", text: d.content.text });
          break;
        }
        case "step.stop":
          if (thoughts.delete(index)) events.push({ type: "reasoning_end", origin: "other" });
          break;
        case "interaction.completed": {
          if (finished) break;
          finished = true;
          const status = interaction?.status;
          if (status === "failed" || status === "cancelled") throw fail(`the interaction ended ${String(status)}`);
          events.push({ type: "done", stopReason: stopOf(status, turn.calls.length > 0), usage: usageFromInteraction(interaction?.usage) });
          onDone(turn);
          break;
        }
      }
      return { events, json, eventName: type };
    },
    end(): UpstreamChunk | null {
      if (finished) return null;
      throw invalidUpstreamEvent("the stream ended early");
    },
  };
}
