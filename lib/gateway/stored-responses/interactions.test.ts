import { describe, expect, it } from "vitest";
import { interactionToResponses } from "./interactions-request";
import { interactionEvents, interactionUsage, toInteraction } from "./interactions-render";

const parse = (sse: string[]) => sse.map((e) => JSON.parse(e.split("\n").find((l) => l.startsWith("data: "))!.slice(6)));

describe("Interactions request → Responses body", () => {
  it("translates steps, contents, tools and settings", () => {
    const r = interactionToResponses({
      model: "models/m",
      system_instruction: "Be brief.",
      previous_interaction_id: "resp_1",
      store: true,
      stream: true,
      tools: [{ type: "function", name: "f", description: "d", parameters: { type: "object" } }],
      generation_config: { max_output_tokens: 50, temperature: 0.2, thinking_level: "low", thinking_summaries: "auto", tool_choice: "any" },
      response_format: { type: "text", mime_type: "application/json", schema: { type: "object" } },
      input: [
        { type: "user_input", content: [{ type: "text", text: "hi" }, { type: "image", data: "AAAA", mime_type: "image/png" }] },
        { type: "thought", signature: "s" },
        { type: "function_call", id: "c1", name: "f", arguments: { a: 1 } },
        { type: "function_result", call_id: "c1", result: [{ type: "text", text: "ok" }] },
      ],
    });
    expect(r.ok && r.value).toEqual({
      stream: true,
      body: {
        model: "m",
        instructions: "Be brief.",
        previous_response_id: "resp_1",
        store: true,
        stream: true,
        tools: [{ type: "function", name: "f", description: "d", parameters: { type: "object" }, strict: false }],
        max_output_tokens: 50,
        temperature: 0.2,
        reasoning: { effort: "low", summary: "auto" },
        tool_choice: "required",
        text: { format: { type: "json_schema", name: "response", schema: { type: "object" }, strict: false } },
        input: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }, { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" }] },
          { type: "function_call", call_id: "c1", name: "f", arguments: '{"a":1}' },
          { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "ok" }] },
        ],
      },
    });
  });

  it("takes a string, one content or a list of contents as one user turn", () => {
    expect(interactionToResponses({ model: "m", input: "x" })).toMatchObject({ ok: true, value: { body: { input: "x" } } });
    for (const input of [{ type: "text", text: "x" }, [{ type: "text", text: "x" }]])
      expect(interactionToResponses({ model: "m", input })).toMatchObject({ ok: true, value: { body: { input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "x" }] }] } } });
  });

  it("refuses what it cannot serve, naming the field", () => {
    const param = (b: unknown) => {
      const r = interactionToResponses(b);
      return r.ok ? null : r.error.param;
    };
    expect(param({ agent: "deep-research", input: "x" })).toBe("agent");
    expect(param({ model: "m" })).toBe("input");
    expect(param({ model: "m", input: "x", tools: [{ type: "code_execution" }] })).toBe("tools[0].type");
    expect(param({ model: "m", input: "x", generation_config: { seed: 1 } })).toBe("generation_config.seed");
    expect(param({ model: "m", input: [{ type: "video", uri: "gs://x" }] })).toBe("input[0].type");
    expect(param({ model: "m", input: [{ type: "google_search_call" }] })).toBe("input[0].type");
    expect(param({ model: "m", input: "x", store: "yes" })).toBe("store");
  });
});

describe("Responses → Interaction", () => {
  const response = {
    id: "resp_1",
    object: "response",
    created_at: 1_800_000_000,
    status: "completed",
    model: "m",
    previous_response_id: null,
    output: [
      { type: "reasoning", summary: [{ type: "summary_text", text: "hmm" }], encrypted_content: "enc" },
      { type: "message", content: [{ type: "output_text", text: "Hi" }] },
      { type: "function_call", call_id: "c1", name: "f", arguments: '{"a":1}' },
    ],
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 } },
  };

  it("shows steps, requires_action after a call, and Gemini's usage fields (output without thoughts)", () => {
    expect(toInteraction(response)).toEqual({
      id: "resp_1",
      object: "interaction",
      model: "m",
      status: "requires_action",
      created: "2027-01-15T08:00:00Z",
      updated: "2027-01-15T08:00:00Z",
      steps: [
        { type: "thought", summary: [{ type: "text", text: "hmm" }], signature: "enc" },
        { type: "model_output", content: [{ type: "text", text: "Hi" }] },
        { type: "function_call", id: "c1", name: "f", arguments: { a: 1 } },
      ],
      usage: { total_input_tokens: 10, total_cached_tokens: 4, total_output_tokens: 4, total_thought_tokens: 3, total_tokens: 17 },
    });
    expect(interactionUsage(null)).toBeUndefined();
  });

  it("turns Responses events into step-typed events, event_id = sequence number, index = output index", () => {
    const events = [
      { type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress", output: [], usage: null } },
      { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { type: "message", content: [] } },
      { type: "response.output_text.delta", sequence_number: 2, output_index: 0, delta: "Hi" },
      { type: "response.output_item.done", sequence_number: 3, output_index: 0, item: { type: "message", content: [{ type: "output_text", text: "Hi" }] } },
      { type: "response.output_item.added", sequence_number: 4, output_index: 1, item: { type: "function_call", call_id: "c1", name: "f", arguments: "" } },
      { type: "response.function_call_arguments.delta", sequence_number: 5, output_index: 1, delta: '{"a":1}' },
      { type: "response.completed", sequence_number: 6, response },
    ].flatMap((e) => parse(interactionEvents(e)));
    expect(events.map((e) => [e.event_type, e.event_id, e.index])).toEqual([
      ["interaction.created", "0", undefined],
      ["step.start", "1", 0],
      ["step.delta", "2", 0],
      ["step.stop", "3", 0],
      ["step.start", "4", 1],
      ["step.delta", "5", 1],
      ["interaction.status_update", "6", undefined],
      ["interaction.completed", "6", undefined],
    ]);
    expect(events[4].step).toEqual({ type: "function_call", id: "c1", name: "f", arguments: {} });
    expect(events[5].delta).toEqual({ type: "arguments_delta", arguments: '{"a":1}' });
    expect(events[7].interaction).toMatchObject({ id: "resp_1", status: "requires_action", usage: { total_input_tokens: 10 } });
    expect(events[7].interaction.steps).toBeUndefined();
  });
});
