/** Table-driven tests of the four inbound parsers: wire request → canonical, and the 400s. */
import { describe, expect, it } from "vitest";
import { chatCompletions, generateContent, messages, responses } from ".";

const user = (text: string) => ({ role: "user", parts: [{ type: "text", text }] });

describe("chat completions → canonical", () => {
  const ok: Array<[string, unknown, Record<string, unknown>]> = [
    ["string content", { model: "m", messages: [{ role: "user", content: "hi" }] }, { model: "m", messages: [user("hi")], stream: false }],
    [
      "system and developer lift into system, in order",
      { model: "m", messages: [{ role: "system", content: "A" }, { role: "developer", content: [{ type: "text", text: "B" }] }, { role: "user", content: "hi" }] },
      { system: "A\n\nB" },
    ],
    [
      "image data URL splits into base64 + media type",
      { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "what" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }] },
      { messages: [{ role: "user", parts: [{ type: "text", text: "what" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: "AAAA" } }] }] },
    ],
    [
      "tool round trip: tool_calls and tool messages; consecutive tool results merge into one user turn",
      {
        model: "m",
        messages: [
          { role: "user", content: "w?" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } }, { id: "c2", type: "function", function: { name: "g", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: "r1" },
          { role: "tool", tool_call_id: "c2", content: "r2" },
        ],
      },
      {
        messages: [
          user("w?"),
          { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "f", arguments: '{"a":1}' }, { type: "tool_call", id: "c2", name: "g", arguments: "{}" }] },
          { role: "user", parts: [{ type: "tool_result", callId: "c1", content: [{ type: "text", text: "r1" }] }, { type: "tool_result", callId: "c2", content: [{ type: "text", text: "r2" }] }] },
        ],
      },
    ],
    [
      "sampling, stop string, max_completion_tokens wins over max_tokens, include_usage",
      { model: "m", messages: [{ role: "user", content: "x" }], temperature: 0.2, top_p: 0.9, stop: "END", max_tokens: 5, max_completion_tokens: 7, stream: true, stream_options: { include_usage: true } },
      { temperature: 0.2, topP: 0.9, stop: ["END"], maxOutputTokens: 7, stream: true, includeUsage: true },
    ],
    [
      "tools, forced tool choice, json schema",
      {
        model: "m",
        messages: [{ role: "user", content: "x" }],
        tools: [{ type: "function", function: { name: "f", description: "d", parameters: { type: "object" } } }],
        tool_choice: { type: "function", function: { name: "f" } },
        response_format: { type: "json_schema", json_schema: { name: "s", schema: { type: "object" }, strict: true } },
      },
      { tools: [{ name: "f", description: "d", parameters: { type: "object" } }], toolChoice: { type: "tool", name: "f" }, responseFormat: { type: "json_schema", name: "s", schema: { type: "object" }, strict: true } },
    ],
  ];
  it.each(ok)("%s", (_, body, expected) => {
    const r = chatCompletions.parseRequest(body);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toMatchObject(expected);
  });

  const bad: Array<[string, unknown, string]> = [
    ["missing model", { messages: [{ role: "user", content: "x" }] }, "model"],
    ["empty messages", { model: "m", messages: [] }, "messages"],
    ["temperature out of range", { model: "m", temperature: 3, messages: [{ role: "user", content: "x" }] }, "temperature"],
    ["stream_options without stream", { model: "m", stream_options: { include_usage: true }, messages: [{ role: "user", content: "x" }] }, "stream_options"],
    ["tool message without id", { model: "m", messages: [{ role: "tool", content: "x" }] }, "messages[0].tool_call_id"],
    ["audio part", { model: "m", messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] }, "messages[0].content[0].type"],
    ["deprecated function role", { model: "m", messages: [{ role: "function", name: "f", content: "x" }] }, "messages[0].role"],
  ];
  it.each(bad)("400 for %s, naming the field", (_, body, field) => {
    const r = chatCompletions.parseRequest(body);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatchObject({ status: 400, code: "invalid_request", param: field });
      expect(r.error.message.startsWith(field)).toBe(true);
    }
  });
});

describe("responses → canonical", () => {
  it("string input, instructions as system, max_output_tokens", () => {
    const r = responses.parseRequest({ model: "m", input: "hi", instructions: "Be brief.", max_output_tokens: 9 });
    expect(r.ok && r.value).toMatchObject({ system: "Be brief.", messages: [user("hi")], maxOutputTokens: 9 });
  });
  it("items: system role, replayed assistant output, function call and its output", () => {
    const r = responses.parseRequest({
      model: "m",
      input: [
        { role: "developer", content: "S" },
        { role: "user", content: [{ type: "input_text", text: "q" }, { type: "input_image", image_url: "https://x/y.png" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "a", annotations: [] }] },
        { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "18C" },
        { type: "reasoning", id: "rs_1", summary: [] },
      ],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.system).toBe("S");
    expect(r.value.messages).toEqual([
      { role: "user", parts: [{ type: "text", text: "q" }, { type: "image", source: { kind: "url", url: "https://x/y.png" }, path: "input[1].content[1]" }] },
      { role: "assistant", parts: [{ type: "text", text: "a" }, { type: "tool_call", id: "call_1", name: "f", arguments: "{}" }] },
      { role: "user", parts: [{ type: "tool_result", callId: "call_1", content: [{ type: "text", text: "18C" }] }] },
      { role: "assistant", parts: [{ type: "reasoning", origin: "other", text: "" }] },
    ]);
  });
  it.each([
    [{ model: "m", input: "x", previous_response_id: "resp_1" }, "previous_response_id"],
    [{ model: "m", input: "x", background: true }, "background"],
  ])("400 naming %j", (body, field) => {
    const r = responses.parseRequest(body);
    expect(!r.ok && r.error.param).toBe(field);
  });

  it("keeps input item types it cannot convert for a Responses upstream, named for any other", () => {
    // custom_tool_call_output converts now (custom tools); an item type we do not know stays unconvertible.
    const r = responses.parseRequest({ model: "m", input: [{ type: "local_shell_call_output", call_id: "c", output: "x" }], tools: [{ type: "no_such_tool" }] });
    expect(r.ok && r.value.unconvertible).toEqual(["input[0].type", "tools[0].type"]);
  });
  it("store is accepted and ignored", () => {
    expect(responses.parseRequest({ model: "m", input: "x", store: true }).ok).toBe(true);
  });
});

describe("messages → canonical", () => {
  it("system blocks, tool_use and tool_result with is_error, thinking mapped and signed blocks kept", () => {
    const r = messages.parseRequest({
      model: "m",
      max_tokens: 10,
      system: [{ type: "text", text: "A" }, { type: "text", text: "B" }],
      thinking: { type: "enabled", budget_tokens: 1024 },
      stop_sequences: ["X"],
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "s" }, { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "boom" }], is_error: true }] },
      ],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ system: "A\n\nB", maxOutputTokens: 10, stop: ["X"], reasoning: { enabled: true, budgetTokens: 1024, show: true } });
    expect(r.value.unconvertible).toBeUndefined();
    expect(r.value.messages[1]).toEqual({
      role: "assistant",
      parts: [
        { type: "reasoning", origin: "anthropic", text: "hm", signature: "s" },
        { type: "tool_call", id: "toolu_1", name: "f", arguments: '{"a":1}', signature: undefined },
      ],
    });
    expect(r.value.messages[2]!.parts[0]).toMatchObject({ type: "tool_result", callId: "toolu_1", isError: true });
  });
  it("tool_choice any → required, disable_parallel_tool_use → parallelToolCalls false", () => {
    const r = messages.parseRequest({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }], tools: [{ name: "f", input_schema: { type: "object" } }], tool_choice: { type: "any", disable_parallel_tool_use: true } });
    expect(r.ok && r.value).toMatchObject({ toolChoice: { type: "required" }, parallelToolCalls: false });
  });
  it.each([
    [{ model: "m", messages: [{ role: "user", content: "x" }] }, "max_tokens"],
    [{ model: "m", max_tokens: 5, temperature: 1.5, messages: [{ role: "user", content: "x" }] }, "temperature"],
    [{ model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "nope" }] }] }, "messages[0].content[0].type"],
  ])("400 naming %j", (body, field) => {
    const r = messages.parseRequest(body);
    expect(!r.ok && r.error.param).toBe(field);
  });
  it("provider-native blocks and tools parse (a passthrough forwards them); converted routes learn what they cannot carry", () => {
    const r = messages.parseRequest({
      model: "m",
      max_tokens: 5,
      messages: [{ role: "user", content: [{ type: "document", source: { type: "file", file_id: "file_011" } }, { type: "text", text: "x" }] }],
      tools: [{ type: "web_search_20250305", name: "web_search" }, { type: "bash_20250124", name: "bash" }],
    });
    expect(r.ok && r.value).toMatchObject({ hostedTools: [{ type: "web_search" }], unconvertible: ["messages[0].content[0]", "tools[1] (bash_20250124)"] });
  });
});

describe("generateContent → canonical", () => {
  it("model and streaming from the URL, snake_case accepted, system instruction, config", () => {
    const r = generateContent.parseRequest(
      {
        system_instruction: { parts: [{ text: "Be brief." }] },
        contents: [{ role: "user", parts: [{ text: "hi" }, { inline_data: { mime_type: "image/png", data: "AAAA" } }] }],
        generation_config: { temperature: 0.5, max_output_tokens: 20, stop_sequences: ["END"], top_k: 3 },
      },
      { pathModel: "gm", stream: true },
    );
    expect(r.ok && r.value).toMatchObject({
      model: "gm",
      stream: true,
      system: "Be brief.",
      temperature: 0.5,
      maxOutputTokens: 20,
      stop: ["END"],
      topK: 3,
      messages: [{ role: "user", parts: [{ type: "text", text: "hi" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: "AAAA" } }] }],
    });
  });
  it("function calls get ids; responses pair with them by name; OpenAPI types are lowered", () => {
    const r = generateContent.parseRequest(
      {
        contents: [
          { role: "user", parts: [{ text: "w?" }] },
          { role: "model", parts: [{ functionCall: { name: "f", args: { a: 1 } } }] },
          { role: "user", parts: [{ functionResponse: { name: "f", response: { output: "18C" } } }] },
        ],
        tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "OBJECT", properties: { a: { type: "NUMBER" } } } }] }],
        toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } },
      },
      { pathModel: "gm" },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const call = r.value.messages[1]!.parts[0] as { id: string };
    expect(r.value.messages[2]!.parts[0]).toEqual({ type: "tool_result", callId: call.id, name: "f", content: [{ type: "text", text: "18C" }] });
    expect(r.value.tools![0]!.parameters).toEqual({ type: "object", properties: { a: { type: "number" } } });
    expect(r.value.toolChoice).toEqual({ type: "tool", name: "f" });
  });
  it.each([
    [{ contents: [{ role: "system", parts: [{ text: "x" }] }] }, "contents[0].role"],
    [{ contents: [{ parts: [{ text: "x" }] }], generationConfig: { thinkingConfig: { thinkingLevel: "extreme" } } }, "generationConfig.thinkingConfig.thinkingLevel"],
    [{ contents: [] }, "contents"],
  ])("400 naming %j", (body, field) => {
    const r = generateContent.parseRequest(body, { pathModel: "gm" });
    expect(!r.ok && r.error.param).toBe(field);
  });
});

describe("several choices", () => {
  it("are carried for a same-protocol upstream and marked unconvertible for any other", () => {
    const c = chatCompletions.parseRequest({ model: "m", n: 3, messages: [{ role: "user", content: "x" }] });
    expect(c.ok && [c.value.n, c.value.unconvertible]).toEqual([3, ["n"]]);
    const g = generateContent.parseRequest({ contents: [{ parts: [{ text: "x" }] }], generationConfig: { candidateCount: 2 } }, { pathModel: "gm" });
    expect(g.ok && [g.value.n, g.value.unconvertible]).toEqual([2, ["generationConfig.candidateCount"]]);
  });
});

describe("what coding agents send", () => {
  it("Claude Code: a system turn inside messages joins the system prompt", () => {
    const r = messages.parseRequest({ model: "m", max_tokens: 5, system: "A", messages: [{ role: "user", content: "q" }, { role: "system", content: "B" }, { role: "user", content: "r" }] });
    expect(r.ok && r.value).toMatchObject({ system: "A\n\nB", messages: [{ role: "user", parts: [{ text: "q" }, { text: "r" }] }] });
  });
  it("Codex: replayed items with null fields (a reasoning item's content) parse", () => {
    const r = responses.parseRequest({ model: "m", input: [{ role: "user", content: "q" }, { type: "reasoning", id: "rs_1", summary: [], content: null, encrypted_content: null }] });
    expect(r.ok).toBe(true);
  });
  it("a Gemini signature of any text survives the trip through the tool-call id", async () => {
    const { idWithSignature, splitToolId } = await import("../conversion/signatures");
    for (const sig of ["sig-write-1", "c2ln+/==", "ünïcode sig"]) {
      const id = idWithSignature("call_1", sig);
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(splitToolId(id)).toEqual({ id: "call_1", signature: sig });
    }
  });
});

describe("what a tool read (images, documents) stays inside the tool result", () => {
  const PNG = "iVBORw0KGgo=";
  it("Gemini functionResponse.parts (what @ai-sdk/google sends) become the result's image and document, each with its path", () => {
    const r = generateContent.parseRequest(
      {
        contents: [
          { role: "model", parts: [{ functionCall: { id: "c1", name: "shot", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { id: "c1", name: "shot", response: { content: "ok" }, parts: [{ inlineData: { mimeType: "image/png", data: PNG } }, { inlineData: { mimeType: "application/pdf", data: "JVBE" } }] } }] },
        ],
      },
      { pathModel: "gm" },
    );
    expect(r.ok && r.value.messages[1]!.parts[0]).toEqual({
      type: "tool_result",
      callId: "c1",
      name: "shot",
      content: [
        { type: "text", text: '{"content":"ok"}' },
        { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG }, path: "contents[1].parts[0].functionResponse.parts[0]" },
        { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBE" }, path: "contents[1].parts[0].functionResponse.parts[1]" },
      ],
    });
    const audio = generateContent.parseRequest({ contents: [{ role: "user", parts: [{ functionResponse: { name: "shot", parts: [{ inlineData: { mimeType: "audio/wav", data: "AA" } }] } }] }] }, { pathModel: "gm" });
    expect(!audio.ok && audio.error.param).toBe("contents[0].parts[0].functionResponse.parts[0].inlineData.mimeType");
  });

  it("a Messages tool_result keeps its document (no longer moved after the results)", () => {
    const doc = { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } };
    const r = messages.parseRequest({ model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "read" }, doc] }] }] });
    expect(r.ok && r.value.messages[0]!.parts).toEqual([
      { type: "tool_result", callId: "t1", content: [{ type: "text", text: "read" }, { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBE" }, path: "messages[0].content[0].content[1]" }] },
    ]);
  });

  it("a Responses function_call_output's input_image and input_file, named by their path in output", () => {
    const r = responses.parseRequest({
      model: "m",
      input: [
        { type: "function_call_output", call_id: "c1", output: [{ type: "input_image", image_url: `data:image/png;base64,${PNG}` }, { type: "input_file", filename: "a.pdf", file_data: "data:application/pdf;base64,JVBE" }] },
      ],
    });
    expect(r.ok && r.value.messages[0]!.parts[0]).toMatchObject({
      type: "tool_result",
      content: [{ type: "image", path: "input[0].output[0]" }, { type: "document", filename: "a.pdf", path: "input[0].output[1]" }],
    });
    const fileId = responses.parseRequest({ model: "m", input: [{ type: "function_call_output", call_id: "c1", output: [{ type: "input_file", file_id: "file-1" }] }] });
    expect(fileId.ok && fileId.value.unconvertible).toEqual(["input[0].output[0].file_id"]);
  });
});

describe("log-probabilities asked in Responses and Gemini shapes", () => {
  it("only their own upstream (passthrough) gives them back: converted routes refuse them by name", () => {
    const rs = responses.parseRequest({ model: "m", input: "hi", top_logprobs: 3, include: ["message.output_text.logprobs"] });
    expect(rs.ok && rs.value.unconvertible).toEqual(["top_logprobs", "include (message.output_text.logprobs)"]);
    const gc = generateContent.parseRequest({ contents: [{ parts: [{ text: "hi" }] }], generationConfig: { responseLogprobs: true, logprobs: 2 } }, { pathModel: "gm" });
    expect(gc.ok && gc.value.unconvertible).toEqual(["generationConfig.responseLogprobs"]);
  });
});
