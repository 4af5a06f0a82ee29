/** Canonical response and stream events → Responses wire JSON and SSE (with sequence_number). */
import type { CanonicalResponse, StopReason, StreamEvent, Usage } from "../../canonical";
import type { ApiError } from "../../errors";
import { promptDetails } from "../chat-completions/render";
import { costUsd, nowSeconds, protocolId } from "../ids";
import { sseEvent } from "../sse";
import type { RenderContext, StreamEncoder } from "../types";

export function renderUsage(u: Usage, costMicroUsd?: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    input_tokens: u.inputTokens,
    input_tokens_details: promptDetails(u),
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
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
    tools: (r.tools ?? []).map((t) => ({ type: "function", name: t.name, description: t.description ?? null, parameters: t.parameters ?? null, strict: false })),
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

export function renderResponsesResponse(resp: CanonicalResponse, ctx: RenderContext): Record<string, unknown> {
  const output: OutputItem[] = [];
  let text = "";
  for (const p of resp.content) if (p.type === "text") text += p.text;
  if (text !== "") output.push(messageItem(`msg_${protocolId.response().slice(5)}`, text, "completed"));
  for (const p of resp.content)
    if (p.type === "tool_call") output.push(functionItem(protocolId.functionCall(), p.id, p.name, p.arguments, "completed"));
  const created = nowSeconds();
  return {
    ...baseResponse(protocolId.response(), created, ctx),
    ...statusOf(resp.stopReason),
    completed_at: nowSeconds(),
    output,
    usage: renderUsage(resp.usage, ctx.costMicroUsd),
  };
}

export function createResponsesStreamEncoder(ctx: RenderContext): StreamEncoder {
  const id = protocolId.response();
  const created = nowSeconds();
  let seq = 0;
  let started = false;
  const output: OutputItem[] = [];
  // The open output item: a message (with its text so far) or a function call.
  let open: { kind: "message"; index: number; id: string; text: string } | { kind: "call"; index: number; id: string; tool: number } | null = null;
  const calls = new Map<number, { item: OutputItem; outputIndex: number; args: string }>();

  const ev = (type: string, body: Record<string, unknown>) => sseEvent(type, { type, sequence_number: seq++, ...body });
  const start = (): string[] => {
    if (started) return [];
    started = true;
    const r = baseResponse(id, created, ctx);
    return [ev("response.created", { response: r }), ev("response.in_progress", { response: r })];
  };
  const close = (): string[] => {
    if (!open) return [];
    const o = open;
    open = null;
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
        case "tool_call_start": {
          const out = [...start(), ...close()];
          const itemId = protocolId.functionCall();
          const item = functionItem(itemId, e.id, e.name, "", "in_progress");
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
          return [ev("response.function_call_arguments.delta", { item_id: c.item.id, output_index: c.outputIndex, delta: e.arguments })];
        }
        case "usage":
          return [];
        case "done": {
          const out = [...start(), ...close()];
          const st = statusOf(e.stopReason);
          const response = {
            ...baseResponse(id, created, ctx),
            ...st,
            completed_at: nowSeconds(),
            output,
            usage: e.usage ? renderUsage(e.usage, e.costMicroUsd) : null,
          };
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
