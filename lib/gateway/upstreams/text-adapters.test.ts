/**
 * The upstream side of the codecs: canonical → each upstream's wire request (including what it
 * cannot express), and each upstream's SSE → canonical events (including cut streams).
 */
import { describe, expect, it } from "vitest";
import type { CanonicalRequest } from "../canonical";
import { anthropicToolId, JSON_MODE_INSTRUCTION, takesPrefill, toAnthropicBody } from "./anthropic-messages-request";
import { createAnthropicDecoder } from "./anthropic-messages-response";
import { planDemoReply } from "./demo-chat";
import { toGeminiBody } from "./gemini-generate-request";
import { createGeminiDecoder, fromGeminiResponse } from "./gemini-generate-response";
import { toOpenAIChatBody } from "./openai-chat-request";
import { toOpenAIResponsesBody } from "./openai-responses-request";
import { createOpenAIChatDecoder, fromOpenAIChatResponse } from "./openai-chat-response";
import { UpstreamStreamError } from "./sse-reader";

const base: CanonicalRequest = {
  model: "pub",
  system: "Be brief.",
  stream: false,
  maxOutputTokens: 100,
  messages: [
    { role: "user", parts: [{ type: "text", text: "Weather?" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: "AAAA" } }] },
    { role: "assistant", parts: [{ type: "text", text: "Checking." }, { type: "tool_call", id: "call.1", name: "get_weather", arguments: '{"city":"Paris"}' }] },
    { role: "user", parts: [{ type: "tool_result", callId: "call.1", content: [{ type: "text", text: "18C" }] }, { type: "text", text: "And tomorrow?" }] },
  ],
  tools: [{ name: "get_weather", description: "d", parameters: { type: "object", properties: { city: { type: "string" } } } }],
  toolChoice: { type: "required" },
};

describe("canonical → openai chat", () => {
  it("system first, tool results as tool messages right after the assistant turn, usage always asked for when streaming", () => {
    const r = toOpenAIChatBody({ ...base, stream: true }, "gpt-x");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const b = r.value as any;
    expect(b.model).toBe("gpt-x");
    expect(b.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(b.messages[1].content[1]).toEqual({ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } });
    expect(b.messages[2].tool_calls[0]).toEqual({ id: "call.1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } });
    expect(b.messages[3]).toEqual({ role: "tool", tool_call_id: "call.1", content: "18C" });
    expect(b).toMatchObject({ max_completion_tokens: 100, tool_choice: "required", stream: true, stream_options: { include_usage: true } });
  });
  it("more than 4 stop sequences cannot be expressed (top_k is a hint the policy drops first)", () => {
    expect(toOpenAIChatBody({ ...base, stop: ["a", "b", "c", "d", "e"] }, "m")).toMatchObject({ ok: false, error: { field: "stop" } });
  });
});

describe("canonical → anthropic messages", () => {
  it("top-level system, tool ids sanitised on both sides, tool results lead the user turn, any ↔ required", () => {
    const r = toAnthropicBody(base, "claude-x");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const b = r.value as any;
    expect(b).toMatchObject({ model: "claude-x", system: "Be brief.", max_tokens: 100, tool_choice: { type: "any" } });
    expect(b.messages[0].content[1]).toEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } });
    expect(b.messages[1].content[1]).toEqual({ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } });
    expect(b.messages[2].content[0]).toEqual({ type: "tool_result", tool_use_id: "call_1", content: [{ type: "text", text: "18C" }] });
    expect(b.messages[2].content[1]).toEqual({ type: "text", text: "And tomorrow?" });
    expect(b.tools[0]).toEqual({ name: "get_weather", description: "d", input_schema: base.tools![0]!.parameters });
    expect(anthropicToolId("a b/c")).toBe("a_b_c");
  });
  it("JSON mode becomes an instruction after the client's system prompt", () => {
    const r = toAnthropicBody({ ...base, responseFormat: { type: "json_object" } }, "m");
    expect(r.ok && (r.value as any).system).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: JSON_MODE_INSTRUCTION },
    ]);
  });
  it.each([
    [{ temperature: 1.2 }, "temperature"],
    [{ maxOutputTokens: undefined }, "max_tokens"],
  ])("%j cannot be expressed", (extra, field) => {
    expect(toAnthropicBody({ ...base, ...extra }, "m")).toMatchObject({ ok: false, error: { field } });
  });
});

describe("canonical → gemini", () => {
  it("user/model roles, functionResponse named from the earlier call, generationConfig, ANY mode", () => {
    const r = toGeminiBody({ ...base, temperature: 0.3, stop: ["END"] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const b = r.value as any;
    expect(b.systemInstruction).toEqual({ parts: [{ text: "Be brief." }] });
    expect(b.contents.map((c: any) => c.role)).toEqual(["user", "model", "user"]);
    expect(b.contents[0].parts[1]).toEqual({ inlineData: { mimeType: "image/png", data: "AAAA" } });
    expect(b.contents[1].parts[1]).toEqual({ functionCall: { name: "get_weather", args: { city: "Paris" } } });
    expect(b.contents[2].parts[0]).toEqual({ functionResponse: { name: "get_weather", response: { output: "18C" } } });
    expect(b.generationConfig).toEqual({ temperature: 0.3, maxOutputTokens: 100, stopSequences: ["END"] });
    expect(b.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } });
    expect(b.tools[0].functionDeclarations[0].parametersJsonSchema).toEqual(base.tools![0]!.parameters);
  });
  it("image URLs and orphan tool results cannot be expressed", () => {
    const url: CanonicalRequest = { ...base, messages: [{ role: "user", parts: [{ type: "image", source: { kind: "url", url: "https://x/y.png" } }] }] };
    expect(toGeminiBody(url)).toMatchObject({ ok: false, error: { field: "image" } });
    const orphan: CanonicalRequest = { ...base, messages: [{ role: "user", parts: [{ type: "tool_result", callId: "nope", content: [] }] }] };
    expect(toGeminiBody(orphan)).toMatchObject({ ok: false, error: { field: "messages" } });
  });
});

describe("upstream responses → canonical", () => {
  it("openai: content, tool calls, finish reason, usage with cache and reasoning split", () => {
    const r = fromOpenAIChatResponse({
      id: "x",
      model: "m",
      choices: [{ finish_reason: "tool_calls", message: { content: null, tool_calls: [{ id: "c", function: { name: "f", arguments: "{}" } }] } }],
      usage: { prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 6 }, completion_tokens_details: { reasoning_tokens: 2 } },
    });
    expect(r).toMatchObject({ stopReason: "tool_calls", content: [{ type: "tool_call", id: "c", name: "f", arguments: "{}" }], usage: { inputTokens: 10, outputTokens: 4, cacheReadTokens: 6, reasoningTokens: 2 } });
    expect(r!.usage.raw).toBeDefined();
  });
  it("gemini: functionCall parts mean tool_calls although finishReason is STOP; thoughts are billed as output", () => {
    const r = fromGeminiResponse({
      candidates: [{ content: { parts: [{ text: "hm", thought: true }, { functionCall: { name: "f", args: { a: 1 } } }] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, thoughtsTokenCount: 5 },
    });
    expect(r).toMatchObject({ stopReason: "tool_calls", usage: { inputTokens: 7, outputTokens: 8, reasoningTokens: 5 } });
    expect(r!.content).toEqual([
      { type: "reasoning", origin: "gemini", text: "hm" },
      { type: "tool_call", id: expect.stringMatching(/^call_/), name: "f", arguments: '{"a":1}', signature: undefined },
    ]);
  });
});

describe("upstream streams → canonical events", () => {
  it("openai: tool call fragments by index, done on the usage chunk", () => {
    const d = createOpenAIChatDecoder("pub");
    const ev = [
      '{"id":"a","model":"up","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
      '{"id":"a","model":"up","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}',
      '{"id":"a","model":"up","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"a\\":1}"}}]}}]}',
      '{"id":"a","model":"up","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
      '{"id":"a","model":"up","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}',
      "[DONE]",
    ].flatMap((x) => d.push(x).events);
    expect(ev.map((e) => e.type)).toEqual(["start", "tool_call_start", "tool_call_delta", "done"]);
    expect(ev[3]).toMatchObject({ type: "done", stopReason: "tool_calls", usage: { inputTokens: 3, outputTokens: 2 } });
  });
  it("openai: a stream cut before its finish is an upstream error, garbage too", () => {
    const d = createOpenAIChatDecoder("pub");
    d.push('{"id":"a","choices":[{"index":0,"delta":{"content":"x"}}]}');
    expect(() => d.end()).toThrow(UpstreamStreamError);
    expect(() => createOpenAIChatDecoder("pub").push("{nope")).toThrow(UpstreamStreamError);
  });
  it("anthropic: input tokens from message_start, done with cumulative usage on message_delta, model rewritten", () => {
    const d = createAnthropicDecoder("pub");
    const chunks = [
      ["message_start", '{"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":5,"cache_read_input_tokens":2,"output_tokens":1}}}'],
      ["content_block_start", '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}'],
      ["content_block_delta", '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}'],
      ["message_delta", '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}'],
      ["message_stop", '{"type":"message_stop"}'],
    ].map(([e, data]) => d.push(data!, e));
    expect((chunks[0]!.json!.message as any).model).toBe("pub");
    const ev = chunks.flatMap((c) => c.events);
    expect(ev.find((e) => e.type === "done")).toMatchObject({ stopReason: "tool_calls", usage: { inputTokens: 7, outputTokens: 9, cacheReadTokens: 2 } });
    expect(d.end()).toBeNull();
  });
  it("anthropic: an error event mid-stream is an upstream error", () => {
    // A call without arguments streams no input_json_delta at all: the arguments must still be JSON.
    const none = createAnthropicDecoder("pub");
    const evs = [
      ["message_start", '{"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":5,"output_tokens":1}}}'],
      ["content_block_start", '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"now","input":{}}}'],
      ["content_block_stop", '{"type":"content_block_stop","index":0}'],
      ["content_block_start", '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_2","name":"f","input":{}}}'],
      ["content_block_delta", '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":1}"}}'],
      ["content_block_stop", '{"type":"content_block_stop","index":1}'],
    ].flatMap(([e, data]) => none.push(data!, e).events);
    const args = (i: number) => evs.filter((e) => e.type === "tool_call_delta" && e.index === i).map((e) => (e as { arguments: string }).arguments).join("");
    expect(args(0)).toBe("{}");
    expect(args(1)).toBe('{"a":1}');
    const d = createAnthropicDecoder("pub");
    expect(() => d.push('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "error")).toThrow(/Overloaded/);
  });
  it("gemini: whole function call becomes start + one delta; done on the finishReason chunk", () => {
    const d = createGeminiDecoder("pub");
    const ev = [
      '{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}],"usageMetadata":{"promptTokenCount":4}}',
      '{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":6}}',
    ].flatMap((x) => d.push(x).events);
    expect(ev.map((e) => e.type)).toEqual(["start", "usage", "text_delta", "usage", "tool_call_start", "tool_call_delta", "done"]);
    expect(ev.at(-1)).toMatchObject({ stopReason: "tool_calls", usage: { inputTokens: 4, outputTokens: 6 } });
  });
});

describe("demo upstream", () => {
  const req = (text: string, extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({ model: "demo-chat", stream: false, messages: [{ role: "user", parts: [{ type: "text", text }] }], ...extra });
  it("is deterministic and derived from the prompt", () => {
    expect(planDemoReply(req("hello there world"))).toEqual(planDemoReply(req("hello there world")));
    expect(planDemoReply(req("hello there world")).words.join("")).toContain("hello there world");
  });
  it("honours max tokens and stop sequences", () => {
    expect(planDemoReply(req("x", { maxOutputTokens: 3 }))).toMatchObject({ stopReason: "max_tokens", words: { length: 3 } });
    const s = planDemoReply(req("x", { stop: ["demo"] }));
    expect(s).toMatchObject({ stopReason: "stop_sequence", stopSequence: "demo" });
    expect(s.words.join("")).not.toContain("demo");
  });
  it("calls the tool it is given, with arguments from the schema", () => {
    const p = planDemoReply(req("w?", { tools: [{ name: "f", parameters: { type: "object", properties: { city: { type: "string" }, n: { type: "integer" } }, required: ["city", "n"] } }] }));
    expect(p.call).toEqual({ name: "f", arguments: '{"city":"demo","n":1}' });
  });
});

describe("what a tool read, toward each upstream", () => {
  const PNG = { kind: "base64" as const, mediaType: "image/png", data: "iVBO" };
  const PDF = { kind: "base64" as const, mediaType: "application/pdf", data: "JVBE" };
  const req: CanonicalRequest = {
    model: "pub",
    stream: false,
    maxOutputTokens: 100,
    messages: [
      { role: "user", parts: [{ type: "text", text: "Look" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "shot", arguments: "{}" }, { type: "tool_call", id: "c2", name: "read", arguments: "{}" }] },
      {
        role: "user",
        parts: [
          { type: "tool_result", callId: "c1", content: [{ type: "text", text: "taken" }, { type: "image", source: PNG }] },
          { type: "tool_result", callId: "c2", content: [{ type: "document", source: PDF, filename: "r.pdf" }], isError: true },
          { type: "text", text: "Compare them" },
        ],
      },
    ],
  };

  it("chat: every tool message first, then one user message with each result's attachments, then the turn's own text", () => {
    const b = toOpenAIChatBody(req, "gpt") as { ok: true; value: { messages: any[] } };
    expect(b.value.messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "taken\n\n[1 attachment of this result follows in the next user message]" },
      { role: "tool", tool_call_id: "c2", content: "Error:\n\n[1 attachment of this result follows in the next user message]" },
      {
        role: "user",
        content: [
          { type: "text", text: "Attachments of the result of tool call c1:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBO" } },
          { type: "text", text: "Attachments of the result of tool call c2:" },
          { type: "file", file: { filename: "r.pdf", file_data: "data:application/pdf;base64,JVBE" } },
          { type: "text", text: "Compare them" },
        ],
      },
    ]);
  });

  it("Gemini 3 inside the function response; earlier Gemini beside it", () => {
    const g3 = toGeminiBody(req, "gemini-3-pro-preview") as { ok: true; value: { contents: any[] } };
    expect(g3.value.contents.at(-1).parts[0]).toEqual({ functionResponse: { name: "shot", response: { output: "taken" }, parts: [{ inlineData: { mimeType: "image/png", data: "iVBO" } }] } });
    const g25 = toGeminiBody(req, "gemini-2.5-flash") as { ok: true; value: { contents: any[] } };
    expect(g25.value.contents.at(-1).parts.slice(0, 3)).toEqual([
      { functionResponse: { name: "shot", response: { output: "taken" } } },
      { text: "Attachments of the result of shot:" },
      { inlineData: { mimeType: "image/png", data: "iVBO" } },
    ]);
  });

  it("Responses: the output as input content; Anthropic: image and document blocks in the tool_result", () => {
    const rs = toOpenAIResponsesBody(req, "gpt-5") as { ok: true; value: { input: any[] } };
    expect(rs.value.input.filter((i) => i.type === "function_call_output").map((i) => i.output)).toEqual([
      [{ type: "input_text", text: "taken" }, { type: "input_image", image_url: "data:image/png;base64,iVBO", detail: "auto" }],
      [{ type: "input_text", text: "Error:" }, { type: "input_file", filename: "r.pdf", file_data: "data:application/pdf;base64,JVBE" }],
    ]);
    const am = toAnthropicBody(req, "claude-sonnet-4-5") as { ok: true; value: { messages: any[] } };
    expect(am.value.messages.at(-1).content[1]).toEqual({ type: "tool_result", tool_use_id: "c2", content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" }, title: "r.pdf" }], is_error: true });
  });
});

describe("JSON mode and log-probabilities toward Claude and Gemini", () => {
  const ask: CanonicalRequest = { model: "pub", stream: false, maxOutputTokens: 100, messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }], responseFormat: { type: "json_object" } };

  it("models that continue a prefill are up to Claude 4.5", () => {
    for (const m of ["claude-3-5-haiku-20241022", "claude-sonnet-4-20250514", "claude-opus-4-1-20250805", "claude-sonnet-4-5", "claude-haiku-4-5@20251001"]) expect(takesPrefill(m), m).toBe(true);
    for (const m of ["claude-opus-4-6", "claude-sonnet-4-6-20260101", "claude-opus-4-7", "claude-fake", "anthropic.claude-sonnet-4-5-20250929-v1:0"]) expect(takesPrefill(m), m).toBe(false);
  });

  it("JSON mode: a '{' prefill (and the instruction) where taken; the instruction alone with thinking or tools", () => {
    const b = toAnthropicBody(ask, "claude-sonnet-4-5") as { ok: true; value: { messages: any[]; system: unknown }; prefill?: string };
    expect(b.prefill).toBe("{");
    expect(b.value.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "{" }] });
    expect(b.value.system).toEqual([{ type: "text", text: JSON_MODE_INSTRUCTION }]);
    const thinking = toAnthropicBody({ ...ask, maxOutputTokens: 8000, reasoning: { enabled: true, effort: "low" } }, "claude-sonnet-4-5") as { ok: true; value: { messages: any[] }; prefill?: string };
    expect(thinking.prefill).toBeUndefined();
    expect(thinking.value.messages.at(-1).role).toBe("user");
    expect((toAnthropicBody(ask, "claude-opus-4-6") as { prefill?: string }).prefill).toBeUndefined();
  });

  it("logprobs: Gemini's responseLogprobs and logprobs; a refusal naming the field toward Claude and Responses", () => {
    const lp = { ...ask, responseFormat: undefined, logprobs: true, topLogprobs: 3 };
    expect((toGeminiBody(lp, "gemini-2.5-flash") as { ok: true; value: { generationConfig: unknown } }).value.generationConfig).toMatchObject({ responseLogprobs: true, logprobs: 3 });
    expect(toAnthropicBody(lp, "claude-sonnet-4-5")).toMatchObject({ ok: false, error: { field: "logprobs" } });
    expect(toOpenAIResponsesBody({ ...lp, logprobs: undefined }, "gpt-5")).toMatchObject({ ok: false, error: { field: "top_logprobs" } });
  });

  it("Gemini's logprobsResult becomes chat's per-token list, plain and per streamed chunk", () => {
    const logprobsResult = { chosenCandidates: [{ token: "Hi", logProbability: -0.1 }], topCandidates: [{ candidates: [{ token: "Hi", logProbability: -0.1 }, { token: "Hey", logProbability: -2 }] }] };
    const json = { candidates: [{ content: { parts: [{ text: "Hi" }] }, finishReason: "STOP", logprobsResult }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 } };
    const want = [{ token: "Hi", logprob: -0.1, topLogprobs: [{ token: "Hi", logprob: -0.1 }, { token: "Hey", logprob: -2 }] }];
    expect(fromGeminiResponse(json)!.logprobs).toEqual(want);
    expect(createGeminiDecoder("pub").push(JSON.stringify(json)).events).toContainEqual({ type: "logprobs", content: want });
  });
});
