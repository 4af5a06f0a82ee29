/** Canonical response and stream events → Responses wire JSON and SSE (with sequence_number). */
import { argumentsToObject, type CanonicalResponse, type ReasoningPart, type StopReason, type StreamEvent, type Usage } from "../../canonical";
import { randomBase62 } from "../../../ids";
import { reasoningCarrier } from "../../conversion/signatures";
import type { ApiError } from "../../errors";
import { promptDetails } from "../chat-completions/render";
import { costUsd, nowSeconds, protocolId } from "../ids";
import { sseEvent } from "../../sse";
import type { RenderContext, StreamEncoder } from "../types";

export function renderUsage(u: Usage, costMicroUsd?: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    input_tokens: u.inputTokens,
    input_tokens_details: promptDetails(u),
    output_tokens: u.outputTokens,
    output_tokens_details: u.imageOutputTokens ? { reasoning_tokens: u.reasoningTokens ?? 0, image_tokens: u.imageOutputTokens } : { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: u.inputTokens + u.outputTokens,
  };
  const cost = costUsd(costMicroUsd);
  if (cost !== undefined) out.cost_usd = cost;
  return out;
}

function statusOf(r: StopReason): { status: string; incomplete_details: unknown } {
  if (r === "max_tokens") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (r === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

function baseResponse(id: string, createdAt: number, ctx: RenderContext): Record<string, unknown> {
  const r = ctx.request;
  return {
    id,
    object: "response",
    created_at: createdAt,
    status: "in_progress",
    error: null,
    incomplete_details: null,
    instructions: r.system ?? null,
    max_output_tokens: r.maxOutputTokens ?? null,
    model: ctx.model,
    output: [],
    parallel_tool_calls: r.parallelToolCalls ?? true,
    previous_response_id: null,
    temperature: r.temperature ?? 1,
    top_p: r.topP ?? 1,
    tool_choice: r.toolChoice ? (r.toolChoice.type === "tool" ? { type: "function", name: r.toolChoice.name } : r.toolChoice.type) : "auto",
    tools: (r.tools ?? []).map((t) =>
      t.custom
        ? { type: "custom", name: t.name, description: t.description ?? null, ...(t.custom.format ? { format: t.custom.format } : {}) }
        : { type: "function", name: t.namespace?.member ?? t.name, description: t.description ?? null, parameters: t.parameters ?? null, strict: false },
    ),
    text: { format: { type: "text" } },
    store: false,
    truncation: "disabled",
    metadata: {},
    usage: null,
  };
}

type OutputItem = Record<string, unknown>;

function messageItem(id: string, text: string, status: string): OutputItem {
  return { id, type: "message", status, role: "assistant", content: [{ type: "output_text", text, annotations: [] }] };
}

function functionItem(id: string, callId: string, name: string, args: string, status: string): OutputItem {
  return { id, type: "function_call", status, call_id: callId, name, arguments: args };
}

/**
 * A drawn image as OpenAI's image generation tool answers it (decision 0073): the base64 in
 * `result`, which the openai SDK and the Vercel AI SDK read. `ig_` ids like OpenAI's.
 */
function imageItem(id: string, mediaType: string, data: string): OutputItem {
  return { id, type: "image_generation_call", status: "completed", result: data, output_format: mediaType.replace(/^image\//, "") };
}

/** A custom tool's raw input: other upstreams call it as a function with one `input` string. */
function customInput(args: string): string {
  const o = argumentsToObject(args);
  return typeof o.input === "string" ? o.input : args;
}

/** A call as the client declared the tool: function (namespaced or not) or custom. */
function toolItem(ctx: RenderContext, callId: string, name: string, args: string, status: string): OutputItem {
  const tool = ctx.request.tools?.find((t) => t.name === name);
  if (tool?.custom) return { id: `ctc_${randomBase62(24)}`, type: "custom_tool_call", status, call_id: callId, name, input: customInput(args) };
  const item = functionItem(protocolId.functionCall(), callId, tool?.namespace?.member ?? name, args, status);
  if (tool?.namespace) item.namespace = tool.namespace.name;
  return item;
}

/** Reasoning as a summary item; what its issuer must get back rides in encrypted_content. */
function reasoningItem(id: string, p: Pick<ReasoningPart, "text" | "origin" | "signature" | "redacted">): OutputItem {
  const item: OutputItem = { id, type: "reasoning", summary: p.text ? [{ type: "summary_text", text: p.text }] : [] };
  const enc = reasoningCarrier({ type: "reasoning", ...p });
  if (enc) item.encrypted_content = enc;
  return item;
}

export function renderResponsesResponse(resp: CanonicalResponse, ctx: RenderContext): Record<string, unknown> {
  const output: OutputItem[] = [];
  let text = "";
  let textAt = -1;
  for (const p of resp.content) {
    if (p.type === "reasoning") output.push(reasoningItem(`rs_${randomBase62(24)}`, p));
    else if (p.type === "text") {
      if (textAt < 0) textAt = output.length;
      text += p.text;
    } else if (p.type === "image") output.push(imageItem(`ig_${randomBase62(24)}`, p.source.mediaType, p.source.data));
  }
  if (text !== "") output.splice(textAt, 0, messageItem(`msg_${protocolId.response().slice(5)}`, text, "completed"));
  for (const p of resp.content) if (p.type === "tool_call") output.push(toolItem(ctx, p.id, p.name, p.arguments, "completed"));
  const created = nowSeconds();
  // Added onto the fresh base, not spread into a copy: decision 0033.
  return Object.assign(baseResponse(protocolId.response(), created, ctx), statusOf(resp.stopReason), {
    completed_at: nowSeconds(),
    output,
    usage: renderUsage(resp.usage, ctx.costMicroUsd),
  });
}

export function createResponsesStreamEncoder(ctx: RenderContext): StreamEncoder {
  const id = protocolId.response();
  const created = nowSeconds();
  let seq = 0;
  let started = false;
  const output: OutputItem[] = [];
  // The open output item: a message (with its text so far) or a function call.
  let open:
    | { kind: "message"; index: number; id: string; text: string }
    | { kind: "call"; index: number; id: string; tool: number }
    | { kind: "reasoning"; index: number; id: string; text: string }
    | null = null;
  const calls = new Map<number, { item: OutputItem; outputIndex: number; args: string }>();

  const ev = (type: string, body: Record<string, unknown>) => sseEvent(type, { type, sequence_number: seq++, ...body });
  const start = (): string[] => {
    if (started) return [];
    started = true;
    const r = baseResponse(id, created, ctx);
    return [ev("response.created", { response: r }), ev("response.in_progress", { response: r })];
  };
  const close = (end?: Extract<StreamEvent, { type: "reasoning_end" }>): string[] => {
    if (!open) return [];
    const o = open;
    open = null;
    if (o.kind === "reasoning") {
      const base = { item_id: o.id, output_index: o.index, summary_index: 0 };
      const item = reasoningItem(o.id, { text: o.text, origin: end?.origin ?? "other", signature: end?.signature, redacted: end?.redacted });
      output[o.index] = item;
      const out: string[] = [];
      if (o.text !== "")
        out.push(
          ev("response.reasoning_summary_text.done", { ...base, text: o.text }),
          ev("response.reasoning_summary_part.done", { ...base, part: { type: "summary_text", text: o.text } }),
        );
      out.push(ev("response.output_item.done", { output_index: o.index, item }));
      return out;
    }
    if (o.kind === "message") {
      const base = { item_id: o.id, output_index: o.index, content_index: 0 };
      const item = messageItem(o.id, o.text, "completed");
      output[o.index] = item;
      return [
        ev("response.output_text.done", { ...base, text: o.text, logprobs: [] }),
        ev("response.content_part.done", { ...base, part: { type: "output_text", text: o.text, annotations: [] } }),
        ev("response.output_item.done", { output_index: o.index, item }),
      ];
    }
    const c = calls.get(o.tool)!;
    if (c.item.type === "custom_tool_call") {
      // Other upstreams stream `{"input": …}` JSON: the raw input is known once the call is whole.
      const input = customInput(c.args);
      const item: OutputItem = { ...c.item, input, status: "completed" };
      output[o.index] = item;
      return [
        ev("response.custom_tool_call_input.delta", { item_id: o.id, output_index: o.index, delta: input }),
        ev("response.custom_tool_call_input.done", { item_id: o.id, output_index: o.index, input }),
        ev("response.output_item.done", { output_index: o.index, item }),
      ];
    }
    const item: OutputItem = { ...c.item, arguments: c.args, status: "completed" };
    output[o.index] = item;
    return [
      ev("response.function_call_arguments.done", { item_id: o.id, output_index: o.index, name: item.name, arguments: c.args }),
      ev("response.output_item.done", { output_index: o.index, item }),
    ];
  };

  return {
    encode(e: StreamEvent): string[] {
      switch (e.type) {
        case "start":
          return start();
        case "text_delta": {
          const out = start();
          if (!open || open.kind !== "message") {
            out.push(...close());
            const itemId = `msg_${id.slice(5)}_${output.length}`;
            open = { kind: "message", index: output.length, id: itemId, text: "" };
            output.push(messageItem(itemId, "", "in_progress"));
            out.push(
              ev("response.output_item.added", { output_index: open.index, item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] } }),
              ev("response.content_part.added", { item_id: itemId, output_index: open.index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }),
            );
          }
          open.text += e.text;
          out.push(ev("response.output_text.delta", { item_id: open.id, output_index: open.index, content_index: 0, delta: e.text, logprobs: [] }));
          return out;
        }
        case "reasoning_delta": {
          const out = start();
          if (!open || open.kind !== "reasoning") {
            out.push(...close());
            const itemId = `rs_${randomBase62(24)}`;
            open = { kind: "reasoning", index: output.length, id: itemId, text: "" };
            output.push({ id: itemId, type: "reasoning", summary: [] });
            out.push(
              ev("response.output_item.added", { output_index: open.index, item: { id: itemId, type: "reasoning", summary: [] } }),
              ev("response.reasoning_summary_part.added", { item_id: itemId, output_index: open.index, summary_index: 0, part: { type: "summary_text", text: "" } }),
            );
          }
          open.text += e.text;
          out.push(ev("response.reasoning_summary_text.delta", { item_id: open.id, output_index: open.index, summary_index: 0, delta: e.text }));
          return out;
        }
        case "reasoning_end": {
          const out = start();
          if (open?.kind === "reasoning") return [...out, ...close(e)];
          if (!e.signature && !e.redacted) return out;
          // A signed block without text (redacted thinking): a reasoning item of its own.
          out.push(...close());
          const itemId = `rs_${randomBase62(24)}`;
          open = { kind: "reasoning", index: output.length, id: itemId, text: "" };
          output.push({ id: itemId, type: "reasoning", summary: [] });
          out.push(ev("response.output_item.added", { output_index: open.index, item: { id: itemId, type: "reasoning", summary: [] } }));
          return [...out, ...close(e)];
        }
        case "image": {
          // Sent whole, as the vendor sends it: added in progress, completed, done with the result.
          const out = [...start(), ...close()];
          const itemId = `ig_${randomBase62(24)}`;
          const index = output.length;
          const item = imageItem(itemId, e.mediaType, e.data);
          output.push(item);
          out.push(
            ev("response.output_item.added", { output_index: index, item: { id: itemId, type: "image_generation_call", status: "in_progress", result: null } }),
            ev("response.image_generation_call.in_progress", { output_index: index, item_id: itemId }),
            ev("response.image_generation_call.completed", { output_index: index, item_id: itemId }),
            ev("response.output_item.done", { output_index: index, item }),
          );
          return out;
        }
        case "tool_call_start": {
          const out = [...start(), ...close()];
          const item = toolItem(ctx, e.id, e.name, "", "in_progress");
          const itemId = item.id as string;
          open = { kind: "call", index: output.length, id: itemId, tool: e.index };
          calls.set(e.index, { item, outputIndex: open.index, args: "" });
          output.push(item);
          out.push(ev("response.output_item.added", { output_index: open.index, item }));
          return out;
        }
        case "tool_call_delta": {
          const c = calls.get(e.index);
          if (!c) return [];
          c.args += e.arguments;
          if (c.item.type === "custom_tool_call") return [];
          return [ev("response.function_call_arguments.delta", { item_id: c.item.id, output_index: c.outputIndex, delta: e.arguments })];
        }
        case "usage":
        case "logprobs": // only chat clients ask for them
          return [];
        case "done": {
          const out = [...start(), ...close()];
          const st = statusOf(e.stopReason);
          // Added onto the fresh base, not spread into a copy: decision 0033.
          const response = Object.assign(baseResponse(id, created, ctx), st, {
            completed_at: nowSeconds(),
            output,
            usage: e.usage ? renderUsage(e.usage, e.costMicroUsd) : null,
          });
          out.push(ev(st.status === "completed" ? "response.completed" : "response.incomplete", { response }));
          return out;
        }
      }
    },
    error(err: ApiError): string[] {
      return [ev("error", { code: err.code, message: err.message, param: err.param ?? null })];
    },
  };
}
