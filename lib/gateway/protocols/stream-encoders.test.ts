/**
 * Golden event sequences of the four stream encoders for one canonical stream: text, then a
 * tool call with argument deltas, then the end with usage and cost.
 */
import { describe, expect, it } from "vitest";
import { chatCompletions, generateContent, messages, responses } from ".";
import type { CanonicalRequest, StreamEvent } from "../canonical";
import { errors } from "../errors";
import type { InboundProtocol } from "./types";

const request: CanonicalRequest = { model: "pub", messages: [{ role: "user", parts: [{ type: "text", text: "x" }] }], stream: true, includeUsage: true };
const EVENTS: StreamEvent[] = [
  { type: "start", id: "up1", model: "pub", inputTokens: 10 },
  { type: "text_delta", text: "Hi" },
  { type: "text_delta", text: " there" },
  { type: "tool_call_start", index: 0, id: "call_1", name: "f" },
  { type: "tool_call_delta", index: 0, arguments: '{"a":' },
  { type: "tool_call_delta", index: 0, arguments: "1}" },
  { type: "usage", usage: { outputTokens: 4 } },
  { type: "done", stopReason: "tool_calls", usage: { inputTokens: 10, outputTokens: 5 }, costMicroUsd: 20 },
];

function encode(p: InboundProtocol, events = EVENTS, req = request): string[] {
  const enc = p.createStreamEncoder({ model: "pub", request: req });
  return events.flatMap((e) => enc.encode(e));
}

/** Every SSE event ends with a blank line and has only event:/data: lines. */
function parse(chunks: string[]): Array<{ event?: string; data: any }> {
  return chunks.map((c) => {
    expect(c.endsWith("\n\n")).toBe(true);
    const lines = c.trimEnd().split("\n");
    const ev = lines.find((l) => l.startsWith("event: "))?.slice(7);
    const data = lines.find((l) => l.startsWith("data: "))!.slice(6);
    return { event: ev, data: data === "[DONE]" ? data : JSON.parse(data) };
  });
}

describe("chat completions stream", () => {
  it("role chunk, deltas, tool call fragments, finish, usage chunk with cost, [DONE]; no event lines", () => {
    const ev = parse(encode(chatCompletions));
    expect(ev.every((e) => e.event === undefined)).toBe(true);
    expect(ev[0]!.data.choices[0].delta).toEqual({ role: "assistant", content: "" });
    expect(ev.slice(1, 3).map((e) => e.data.choices[0].delta.content)).toEqual(["Hi", " there"]);
    expect(ev[3]!.data.choices[0].delta.tool_calls).toEqual([{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }]);
    expect(ev.slice(4, 6).map((e) => e.data.choices[0].delta.tool_calls[0].function.arguments).join("")).toBe('{"a":1}');
    expect(ev[6]!.data.choices[0]).toMatchObject({ delta: {}, finish_reason: "tool_calls" });
    expect(ev[7]!.data).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost_usd: 0.00002 } });
    expect(ev[8]!.data).toBe("[DONE]");
    expect(new Set(ev.slice(0, 8).map((e) => e.data.id)).size).toBe(1);
    expect(ev.slice(0, 8).every((e) => e.data.model === "pub" && e.data.object === "chat.completion.chunk")).toBe(true);
  });
  it("without include_usage: no usage chunk, no usage field", () => {
    const ev = parse(encode(chatCompletions, EVENTS, { ...request, includeUsage: false }));
    expect(ev.some((e) => e.data !== "[DONE]" && "usage" in e.data)).toBe(false);
    expect(ev.at(-1)!.data).toBe("[DONE]");
  });
  it("mid-stream error is a data payload with an error key", () => {
    const enc = chatCompletions.createStreamEncoder({ model: "pub", request });
    expect(parse(enc.error(errors.upstream("boom")))[0]!.data).toEqual({ error: { message: "boom", type: "upstream_error", code: "upstream_error" } });
  });
});

describe("responses stream", () => {
  it("created first, increasing sequence numbers, items in push order, completed with usage", () => {
    const ev = parse(encode(responses));
    expect(ev.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    ev.forEach((e, i) => {
      expect(e.data.type).toBe(e.event);
      expect(e.data.sequence_number).toBe(i);
    });
    expect(ev[2]!.data.item).toMatchObject({ type: "message", content: [] });
    expect(ev[9]!.data).toMatchObject({ output_index: 1, item: { type: "function_call", call_id: "call_1", name: "f", arguments: "" } });
    const done = ev.at(-1)!.data.response;
    expect(done.status).toBe("completed");
    expect(done.output.map((o: any) => o.type)).toEqual(["message", "function_call"]);
    expect(done.output[0].content[0].text).toBe("Hi there");
    expect(done.output[1].arguments).toBe('{"a":1}');
    expect(done.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15, cost_usd: 0.00002 });
  });
  it("max tokens ends as response.incomplete", () => {
    const ev = parse(encode(responses, [EVENTS[0]!, EVENTS[1]!, { type: "done", stopReason: "max_tokens", usage: { inputTokens: 1, outputTokens: 1 } }]));
    expect(ev.at(-1)!.data).toMatchObject({ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } } });
  });
});

describe("messages stream", () => {
  it("message_start, one block per part with its index, message_delta with usage, message_stop", () => {
    const ev = parse(encode(messages));
    expect(ev.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    ev.forEach((e) => expect(e.data.type).toBe(e.event));
    expect(ev[0]!.data.message).toMatchObject({ model: "pub", content: [], stop_reason: null, usage: { input_tokens: 10 } });
    expect(ev[5]!.data).toMatchObject({ index: 1, content_block: { type: "tool_use", id: "call_1", name: "f", input: {} } });
    expect(ev[6]!.data.delta).toEqual({ type: "input_json_delta", partial_json: '{"a":' });
    expect(ev[9]!.data).toMatchObject({ delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 5, input_tokens: 10, cost_usd: 0.00002 } });
  });
  it("mid-stream error is event: error with Anthropic's error type, the spec's code kept", () => {
    const enc = messages.createStreamEncoder({ model: "pub", request });
    const [e] = parse(enc.error(errors.upstreamTimeout()));
    expect(e).toMatchObject({ event: "error", data: { type: "error", error: { type: "timeout_error", code: "upstream_timeout", message: expect.any(String) } } });
  });
});

describe("generateContent stream", () => {
  it("data-only chunks, whole function call, final chunk with finishReason and full usage", () => {
    const ev = parse(encode(generateContent));
    expect(ev.every((e) => e.event === undefined)).toBe(true);
    expect(ev.map((e) => e.data.candidates[0].content.parts)).toEqual([[{ text: "Hi" }], [{ text: " there" }], [{ functionCall: { id: "call_1", name: "f", args: { a: 1 } } }]]);
    expect(ev.at(-1)!.data.candidates[0].finishReason).toBe("STOP");
    expect(ev.at(-1)!.data.usageMetadata).toEqual({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15, costUsd: 0.00002 });
    expect(ev[0]!.data.usageMetadata).toEqual({ promptTokenCount: 10, totalTokenCount: 10 });
  });
  it("mid-stream error has a numeric code", () => {
    const enc = generateContent.createStreamEncoder({ model: "pub", request });
    expect(parse(enc.error(errors.upstreamTimeout()))[0]!.data).toMatchObject({
      error: { code: 504, message: expect.any(String), status: "DEADLINE_EXCEEDED", details: [{ reason: "upstream_timeout" }] },
    });
  });
});
