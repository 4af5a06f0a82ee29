import { describe, expect, it } from "vitest";
import type { CanonicalMessage } from "../canonical";
import { chainScope, findChain, forgetChain, rememberChain } from "./gemini-interactions-chain";
import { interactionSettings, interactionSteps } from "./gemini-interactions-request";
import { createInteractionsDecoder, fromInteraction } from "./gemini-interactions-response";

const user = (text: string): CanonicalMessage => ({ role: "user", parts: [{ type: "text", text }] });

describe("gemini-interactions chain", () => {
  it("finds the conversation it served, whatever the client kept of reasoning and cache marks, per credential", () => {
    const scope = chainScope({ authorization: "Bearer sk-a" }, "gi", "m")!;
    const turn1 = [user("Weather?")];
    rememberChain(scope, turn1, [{ type: "reasoning", text: "x", origin: "other" }, { type: "tool_call", id: "c1", name: "w", arguments: '{"city": "Paris"}' }], "v1_a");
    const replay: CanonicalMessage[] = [
      { role: "user", parts: [{ type: "text", text: "Weather?", cacheControl: { type: "ephemeral" } }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "w", arguments: '{"city":"Paris"}' }] },
      { role: "user", parts: [{ type: "tool_result", callId: "c1", content: [{ type: "text", text: "sunny" }] }] },
    ];
    expect(findChain(scope, replay)).toMatchObject({ previousId: "v1_a", from: 2 });
    expect(findChain(chainScope({ authorization: "Bearer sk-b" }, "gi", "m")!, replay)).toBeNull();
    expect(findChain(scope, [user("Weather?"), { role: "assistant", parts: [{ type: "text", text: "edited" }] }, user("?")])).toBeNull();
    expect(chainScope({}, "gi", "m")).toBeNull();
    forgetChain(findChain(scope, replay)!.key);
    expect(findChain(scope, replay)).toBeNull();
  });
});

describe("gemini-interactions wire", () => {
  it("builds steps and settings", () => {
    const steps = interactionSteps([
      { role: "user", parts: [{ type: "text", text: "hi" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: "AAAA" } }] },
      { role: "assistant", parts: [{ type: "text", text: "calling" }, { type: "tool_call", id: "c1", name: "f", arguments: '{"a":1}' }] },
      { role: "user", parts: [{ type: "tool_result", callId: "c1", content: [{ type: "text", text: "ok" }], isError: true }] },
    ]);
    expect(steps.ok && steps.value).toEqual([
      { type: "user_input", content: [{ type: "text", text: "hi" }, { type: "image", data: "AAAA", mime_type: "image/png" }] },
      { type: "model_output", content: [{ type: "text", text: "calling" }] },
      { type: "function_call", id: "c1", name: "f", arguments: { a: 1 } },
      { type: "function_result", call_id: "c1", result: "ok", is_error: true },
    ]);
    const s = interactionSettings(
      { model: "x", stream: false, messages: [], system: "sys", maxOutputTokens: 9, stop: ["."], reasoning: { enabled: true, effort: "xhigh", show: true }, toolChoice: { type: "tool", name: "f" }, responseFormat: { type: "json_object" } },
      "gemini-3-flash-preview",
    );
    expect(s.ok && s.value).toEqual({
      model: "gemini-3-flash-preview",
      system_instruction: "sys",
      generation_config: { max_output_tokens: 9, stop_sequences: ["."], thinking_level: "high", thinking_summaries: "auto", tool_choice: { allowed_tools: { mode: "any", tools: ["f"] } } },
      response_format: { type: "text", mime_type: "application/json" },
    });
  });

  it("reads an Interaction and its stream, usage in the Interactions dialect (thoughts are output)", () => {
    const usage = { total_input_tokens: 30, total_cached_tokens: 10, total_output_tokens: 5, total_thought_tokens: 2 };
    const r = fromInteraction({
      id: "v1_x",
      status: "requires_action",
      steps: [
        { type: "user_input", content: [{ type: "text", text: "echoed input" }] },
        { type: "thought", signature: "s", summary: [{ type: "text", text: "hmm" }] },
        { type: "function_call", id: "c1", name: "f", arguments: { a: 1 } },
      ],
      usage,
    })!;
    expect(r.content).toEqual([{ type: "reasoning", text: "hmm", origin: "other" }, { type: "tool_call", id: "c1", name: "f", arguments: '{"a":1}' }]);
    expect(r.stopReason).toBe("tool_calls");
    expect(r.usage).toMatchObject({ inputTokens: 30, cacheReadTokens: 10, outputTokens: 7, reasoningTokens: 2 });

    let done: unknown = null;
    const d = createInteractionsDecoder("pub", (t) => (done = t));
    const ev = (o: unknown) => d.push(JSON.stringify(o)).events;
    expect(ev({ event_type: "interaction.created", interaction: { id: "v1_y", status: "in_progress" } })).toEqual([{ type: "start", id: "v1_y", model: "pub" }]);
    expect(ev({ event_type: "step.start", index: 0, step: { type: "model_output" } })).toEqual([]);
    expect(ev({ event_type: "step.delta", index: 0, delta: { type: "text", text: "Hi" } })).toEqual([{ type: "text_delta", text: "Hi" }]);
    expect(ev({ event_type: "step.start", index: 1, step: { type: "function_call", id: "c2", name: "g", arguments: {} } })).toEqual([{ type: "tool_call_start", index: 0, id: "c2", name: "g" }]);
    expect(ev({ event_type: "step.delta", index: 1, delta: { type: "arguments_delta", arguments: "{}" } })).toEqual([{ type: "tool_call_delta", index: 0, arguments: "{}" }]);
    expect(ev({ event_type: "interaction.completed", interaction: { id: "v1_y", status: "requires_action", usage } })[0]).toMatchObject({ type: "done", stopReason: "tool_calls", usage: { inputTokens: 30 } });
    expect(done).toEqual({ id: "v1_y", text: "Hi", calls: [{ id: "c2", name: "g", arguments: "{}" }] });
    expect(() => createInteractionsDecoder("pub", () => {}).push(JSON.stringify({ event_type: "error", error: { message: "boom" } }))).toThrow(/boom/);
  });
});
