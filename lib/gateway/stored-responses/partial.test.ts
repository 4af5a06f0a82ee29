import { describe, expect, it } from "vitest";
import { partialOutput } from "./partial";

const sse = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

describe("partialOutput", () => {
  it("rebuilds finished and unfinished items from a cut stream", () => {
    const events = [
      sse("response.created", { response: { id: "resp_1", output: [] } }),
      sse("response.output_item.added", { output_index: 0, item: { id: "fc_1", type: "function_call", status: "in_progress", name: "f", arguments: "" } }),
      sse("response.function_call_arguments.delta", { output_index: 0, delta: '{"a":' }),
      sse("response.output_item.done", { output_index: 0, item: { id: "fc_1", type: "function_call", status: "completed", name: "f", arguments: '{"a":1}' } }),
      sse("response.output_item.added", { output_index: 1, item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] } }),
      sse("response.content_part.added", { output_index: 1, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }),
      sse("response.output_text.delta", { output_index: 1, content_index: 0, delta: "one " }),
      sse("response.output_text.delta", { output_index: 1, content_index: 0, delta: "two" }),
    ];
    expect(partialOutput(events)).toEqual([
      { id: "fc_1", type: "function_call", status: "completed", name: "f", arguments: '{"a":1}' },
      { id: "msg_1", type: "message", status: "incomplete", role: "assistant", content: [{ type: "output_text", text: "one two", annotations: [] }] },
    ]);
  });

  it("keeps reasoning summaries and ignores what it cannot read", () => {
    const events = [
      "data: not json\n\n",
      sse("response.output_item.added", { output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } }),
      sse("response.reasoning_summary_part.added", { output_index: 0, summary_index: 0, part: { type: "summary_text", text: "" } }),
      sse("response.reasoning_summary_text.delta", { output_index: 0, summary_index: 0, delta: "thinking" }),
    ];
    expect(partialOutput(events)).toEqual([{ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }] }]);
  });
});
