/**
 * The text matrix, shared by the unit run (handleText on an in-test host) and the integration
 * run (the real server): every inbound protocol through its official SDK × every upstream
 * protocol (fake servers that record what they received), plain, streamed and tool calling.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI, Type } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { FakeTextUpstream } from "./fakes/text-fake-core";

export interface MatrixEnv {
  url: string;
  key: string;
  fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
  /** Public model id served by the given upstream. */
  model(up: "openai" | "anthropic" | "gemini"): string;
  /** The upstream model name the fake must receive. */
  upstreamModel(up: "openai" | "anthropic" | "gemini"): string;
  /** Micro-USD per token (input, output) of those models, to check the streamed cost. */
  price: { input: number; output: number };
}

export function defineTextMatrix(env: () => MatrixEnv) {
  const UPSTREAMS = ["openai", "anthropic", "gemini"] as const;
  const TEXT = "Hello from the fake upstream!";
  const TOOL = { name: "get_weather", arguments: '{"city":"Paris"}' };
  const weatherSchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

  /** The last generation request the fake saw, as plain data: its model, prompt text and tools. */
  function received(up: (typeof UPSTREAMS)[number]) {
    const reqs = env().fakes[up].generationRequests();
    expect(reqs.length).toBeGreaterThan(0);
    const r = reqs[reqs.length - 1]!;
    const body = r.body;
    const text = JSON.stringify(up === "gemini" ? body.contents : body.messages);
    const model = up === "gemini" ? decodeURIComponent(r.path.split("/models/")[1]!.split(":")[0]!) : body.model;
    const toolNames: string[] =
      up === "openai" ? (body.tools ?? []).map((t: any) => t.function.name) : up === "anthropic" ? (body.tools ?? []).map((t: any) => t.name) : (body.tools?.[0]?.functionDeclarations ?? []).map((t: any) => t.name);
    return { r, body, text, model, toolNames };
  }

  const clients = () => ({
    openai: new OpenAI({ apiKey: env().key, baseURL: `${env().url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: env().key, baseURL: env().url, maxRetries: 0 }),
    google: new GoogleGenAI({ apiKey: env().key, httpOptions: { baseUrl: env().url } }),
  });

  describe.each(UPSTREAMS)("upstream %s", (up) => {
    const reset = (tools = false) => env().fakes[up].reset(tools ? { text: "", toolCalls: [TOOL] } : { text: TEXT });

    it("chat completions plain", async () => {
      const model = env().model(up);
      reset();
      const r = await clients().openai.chat.completions.create({ model, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Say hi" }] });
      expect(r.choices[0]!.message.content).toBe(TEXT);
      expect(r.choices[0]!.finish_reason).toBe("stop");
      expect(r.model).toBe(model);
      expect(r.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 });
      const got = received(up);
      expect(got.model).toBe(env().upstreamModel(up));
      expect(got.text).toContain("Say hi");
      expect(JSON.stringify(got.body)).toContain("Be brief.");
    });

    it("chat completions streamed with usage", async () => {
      const model = env().model(up);
      reset();
      const stream = await clients().openai.chat.completions.create({ model, messages: [{ role: "user", content: "Say hi" }], stream: true, stream_options: { include_usage: true } });
      let text = "";
      let usage: any = null;
      let finish: string | null = null;
      for await (const c of stream) {
        text += c.choices[0]?.delta.content ?? "";
        finish = c.choices[0]?.finish_reason ?? finish;
        if (c.usage) usage = c.usage;
      }
      expect(text).toBe(TEXT);
      expect(finish).toBe("stop");
      expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5 });
      expect(usage.cost_usd).toBeCloseTo((11 * env().price.input + 5 * env().price.output) / 1e6, 9);
      expect(received(up).body.stream ?? up === "gemini").toBeTruthy();
    });

    it("chat completions tool call round trip (stream helper)", async () => {
      const model = env().model(up);
      reset(true);
      const runner = clients().openai.chat.completions.stream({
        model,
        messages: [{ role: "user", content: "Weather in Paris?" }],
        tools: [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }],
      });
      const final = await runner.finalChatCompletion();
      const call = final.choices[0]!.message.tool_calls![0]! as any;
      expect(call.function.name).toBe("get_weather");
      expect(JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });
      expect(final.choices[0]!.finish_reason).toBe("tool_calls");
      expect(received(up).toolNames).toEqual(["get_weather"]);
      // Second turn: the tool result goes back in the upstream's own shape.
      reset();
      const r = await clients().openai.chat.completions.create({
        model,
        messages: [
          { role: "user", content: "Weather in Paris?" },
          { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: "get_weather", arguments: call.function.arguments } }] },
          { role: "tool", tool_call_id: call.id, content: "18C, cloudy" },
        ],
        tools: [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }],
      });
      expect(r.choices[0]!.message.content).toBe(TEXT);
      const got = received(up);
      expect(got.text).toContain("18C, cloudy");
      if (up === "anthropic") expect(got.text).toContain("tool_result");
      if (up === "gemini") expect(got.text).toContain("functionResponse");
      if (up === "openai") expect(got.text).toContain('"role":"tool"');
    });

    it("responses plain and streamed", async () => {
      const model = env().model(up);
      reset();
      const r = await clients().openai.responses.create({ model, input: "Say hi", instructions: "Be brief." });
      expect(r.output_text).toBe(TEXT);
      expect(r.usage?.input_tokens).toBe(11);
      expect(JSON.stringify(received(up).body)).toContain("Be brief.");
      reset();
      const stream = await clients().openai.responses.create({ model, input: [{ role: "user", content: "Say hi" }], stream: true });
      let text = "";
      let completed: any = null;
      let seq = -1;
      for await (const ev of stream) {
        expect(ev.sequence_number).toBe(seq + 1);
        seq = ev.sequence_number;
        if (ev.type === "response.output_text.delta") text += ev.delta;
        if (ev.type === "response.completed") completed = ev.response;
      }
      expect(text).toBe(TEXT);
      expect(completed.output_text ?? completed.output[0].content[0].text).toBe(TEXT);
    });

    it("responses tool call (streamed helper)", async () => {
      const model = env().model(up);
      reset(true);
      const stream = clients().openai.responses.stream({ model, input: "Weather in Paris?", tools: [{ type: "function", name: "get_weather", parameters: weatherSchema, strict: false }] });
      const final = await stream.finalResponse();
      const call = final.output.find((o) => o.type === "function_call") as any;
      expect(call.name).toBe("get_weather");
      expect(JSON.parse(call.arguments)).toEqual({ city: "Paris" });
      expect(received(up).toolNames).toEqual(["get_weather"]);
    });

    it("messages plain, streamed and tool use", async () => {
      const model = env().model(up);
      reset();
      const r = await clients().anthropic.messages.create({ model, max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: "Say hi" }] });
      expect(r.content[0]).toMatchObject({ type: "text", text: TEXT });
      expect(r.stop_reason).toBe("end_turn");
      expect(r.usage.output_tokens).toBe(5);
      reset();
      const s = clients().anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "Say hi" }] });
      let text = "";
      s.on("text", (t) => (text += t));
      const fin = await s.finalMessage();
      expect(text).toBe(TEXT);
      expect(fin.usage.output_tokens).toBe(5);
      reset(true);
      const t = clients().anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "Weather?" }], tools: [{ name: "get_weather", input_schema: weatherSchema as any }] });
      const tm = await t.finalMessage();
      const tu = tm.content.find((b) => b.type === "tool_use") as any;
      expect(tu.name).toBe("get_weather");
      expect(tu.input).toEqual({ city: "Paris" });
      expect(tm.stop_reason).toBe("tool_use");
      expect(received(up).toolNames).toEqual(["get_weather"]);
    });

    it("generateContent plain, streamed and function calling", async () => {
      const model = env().model(up);
      reset();
      const g = clients().google;
      const r = await g.models.generateContent({ model, contents: "Say hi", config: { systemInstruction: "Be brief.", maxOutputTokens: 50 } });
      expect(r.text).toBe(TEXT);
      expect(r.usageMetadata?.promptTokenCount).toBe(11);
      expect(JSON.stringify(received(up).body)).toContain("Be brief.");
      reset();
      let text = "";
      for await (const c of await g.models.generateContentStream({ model, contents: "Say hi" })) text += c.text ?? "";
      expect(text).toBe(TEXT);
      reset(true);
      const fc = await g.models.generateContent({
        model,
        contents: "Weather in Paris?",
        config: { tools: [{ functionDeclarations: [{ name: "get_weather", parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } }] }] },
      });
      expect(fc.functionCalls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
      const got = received(up);
      expect(got.toolNames).toEqual(["get_weather"]);
      if (up !== "gemini") expect(JSON.stringify(got.body.tools)).toContain('"type":"object"');
    });
  });
}
