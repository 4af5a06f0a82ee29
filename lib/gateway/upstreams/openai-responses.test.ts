/** The openai-responses adapter's pure parts: the request encoder, the decoders, the reasoning tags. */
import { describe, expect, it } from "vitest";
import { toOpenAIResponsesBody } from "./openai-responses-request";
import { createOpenAIResponsesDecoder, fromOpenAIResponsesResponse } from "./openai-responses-response";
import { reasoningFor, wrapReasoning } from "./openai-responses-reasoning";

describe("openai-responses adapter", () => {
  it("encodes a canonical request as Responses items, refusing what Responses cannot take", () => {
    const r = toOpenAIResponsesBody(
      {
        model: "m",
        system: "S",
        stream: false,
        maxOutputTokens: 64,
        messages: [
          { role: "user", parts: [{ type: "text", text: "q" }] },
          { role: "assistant", parts: [{ type: "text", text: "a" }, { type: "tool_call", id: "call_1", name: "f", arguments: "{}" }] },
          { role: "user", parts: [{ type: "tool_result", callId: "call_1", content: [{ type: "text", text: "r" }] }] },
        ],
        tools: [{ name: "f", parameters: { type: "object" } }],
        toolChoice: { type: "tool", name: "f" },
      },
      "up",
    );
    expect(r.ok && r.value).toEqual({
      model: "up",
      store: false,
      instructions: "S",
      max_output_tokens: 64,
      input: [
        { role: "user", content: [{ type: "input_text", text: "q" }] },
        { role: "assistant", content: "a" },
        { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "r" },
      ],
      tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: false }],
      tool_choice: { type: "function", name: "f" },
    });
    const stop = toOpenAIResponsesBody({ model: "m", stream: false, messages: [], stop: ["x"] }, "up");
    expect(!stop.ok && stop.error.field).toBe("stop");
  });

  it("decodes responses and streams, incomplete and tool calls included", () => {
    const r = fromOpenAIResponsesResponse({
      id: "resp_1",
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [{ type: "message", content: [{ type: "output_text", text: "hi" }] }],
      usage: { input_tokens: 3, output_tokens: 2, input_tokens_details: { cached_tokens: 1 } },
    });
    expect(r).toMatchObject({ stopReason: "max_tokens", content: [{ type: "text", text: "hi" }], usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 1 } });
    const d = createOpenAIResponsesDecoder("pub");
    const ev = (o: unknown) => d.push(JSON.stringify(o)).events;
    expect(ev({ type: "response.created", response: { id: "r", model: "up" } })).toEqual([{ type: "start", id: "r", model: "pub" }]);
    expect(ev({ type: "response.output_item.added", output_index: 0, item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: "" } })).toEqual([
      { type: "tool_call_start", index: 0, id: "call_1", name: "f" },
    ]);
    expect(ev({ type: "response.function_call_arguments.delta", item_id: "fc_1", delta: "{}" })).toEqual([{ type: "tool_call_delta", index: 0, arguments: "{}" }]);
    expect(ev({ type: "response.completed", response: { status: "completed", usage: { input_tokens: 1, output_tokens: 1 } } })[0]).toMatchObject({ type: "done", stopReason: "tool_calls" });
    expect(() => createOpenAIResponsesDecoder("pub").end()).toThrow();
  });

  it("tags encrypted reasoning with its upstream and gives it back only there", () => {
    const json = { output: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "secret" }] };
    wrapReasoning(json, "up-a");
    const item = json.output[0]!;
    expect(item.encrypted_content).toMatch(/^gw1\.[\w-]{12}\.secret$/);
    wrapReasoning(json, "up-a");
    expect(item.encrypted_content.match(/gw1\./g)).toHaveLength(1); // never twice
    expect(reasoningFor(item, "up-a")).toEqual({ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "secret" });
    expect(reasoningFor(item, "up-b")).toBeNull();
    const foreign = { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "plain" };
    expect(reasoningFor(foreign, "up-b")).toBe(foreign); // not ours to judge
  });
});
