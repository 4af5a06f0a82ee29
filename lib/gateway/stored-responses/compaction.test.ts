/** Compaction items: sealed for one account, opened back into a summary, refused to another. */
import { describe, expect, it } from "vitest";
import { compactionItem, expandCompactions, isCompactionTrigger, outputText, summaryRequest } from "./compaction";

describe("compaction items", () => {
  it("seal the summary for the account and open back into a user message carrying it", () => {
    const item = compactionItem("acc_a", "the code word is PAPAYA");
    expect(item).toMatchObject({ type: "compaction", id: expect.stringMatching(/^cmp_/) });
    expect(String(item.encrypted_content)).not.toContain("PAPAYA");
    const r = expandCompactions([item, { type: "message", role: "user", content: "next" }], "acc_a");
    expect(r.ok && r.value).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: expect.stringContaining("the code word is PAPAYA") }] },
      { type: "message", role: "user", content: "next" },
    ]);
  });

  it("refuse another account's or a tampered item, naming it; leave an upstream's own item as sent", () => {
    const item = compactionItem("acc_a", "secret");
    expect(expandCompactions([{ type: "message" }, item], "acc_b")).toMatchObject({ ok: false, error: { status: 400, param: "input[1].encrypted_content" } });
    const tampered = { ...item, encrypted_content: `${String(item.encrypted_content).slice(0, -2)}xx` };
    expect(expandCompactions([tampered], "acc_a").ok).toBe(false);
    const openai = { type: "compaction", id: "cmp_1", encrypted_content: "gAAAAB-opaque" };
    const input = [openai];
    expect(expandCompactions(input, "acc_a")).toEqual({ ok: true, value: [openai] });
    expect(expandCompactions("hello", "acc_a")).toEqual({ ok: true, value: "hello" });
  });

  it("know the trigger only as the last item, and build the summarisation request from the rest", () => {
    const trigger = { type: "compaction_trigger" };
    expect(isCompactionTrigger([{ type: "message" }, trigger])).toBe(true);
    expect(isCompactionTrigger([trigger, { type: "message" }])).toBe(false);
    expect(isCompactionTrigger("compaction_trigger")).toBe(false);
    const body = { model: "m", stream: true, store: true, previous_response_id: "resp_1", include: ["reasoning.encrypted_content"], tools: [{ type: "function", name: "f" }] };
    const req = summaryRequest(body, [{ type: "message", role: "user", content: "hi" }, trigger]);
    expect(req).toMatchObject({ model: "m", stream: false, store: false, tool_choice: "none" });
    expect(req).not.toHaveProperty("previous_response_id");
    expect(req).not.toHaveProperty("include");
    expect((req.input as unknown[]).length).toBe(2);
    expect(JSON.stringify(req.input)).not.toContain("compaction_trigger");
    expect(summaryRequest({ model: "m" }, [])).not.toHaveProperty("tool_choice");
  });

  it("read the summary from a Responses object's message output only", () => {
    const response = {
      output: [
        { type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }] },
        { type: "message", content: [{ type: "output_text", text: "Part one. " }, { type: "output_text", text: "Part two." }] },
      ],
    };
    expect(outputText(response)).toBe("Part one. Part two.");
    expect(outputText({ output: [] })).toBe("");
  });
});
