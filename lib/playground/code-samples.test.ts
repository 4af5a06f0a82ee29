import { describe, expect, it } from "vitest";
import { chatCodeSamples, prettyJson } from "./code-samples";

const s = { model: "demo-chat", system: "Be brief.", temperature: 0.5, maxTokens: 100 };
const turns = [{ role: "user" as const, text: "It's me" }];

describe("chat code samples", () => {
  it("curl hits the protocol's public route on the real base URL with a placeholder key", () => {
    const [curl] = chatCodeSamples("chat-completions", "https://gw.example.com/", s, turns);
    expect(curl!.code).toContain('curl -N "https://gw.example.com/v1/chat/completions"');
    expect(curl!.code).toContain("Authorization: Bearer $GATEWAY_API_KEY");
    expect(curl!.code).toContain('export GATEWAY_API_KEY="sk-your-key"');
    // The single quote in the prompt survives shell quoting.
    expect(curl!.code).toContain(`It'\\''s me`);
    const gc = chatCodeSamples("generate-content", "https://gw.example.com", s, turns)[0]!.code;
    expect(gc).toContain("/v1beta/models/demo-chat:streamGenerateContent?alt=sse");
    expect(gc).toContain("x-goog-api-key");
    const am = chatCodeSamples("messages", "https://gw.example.com", s, turns)[0]!.code;
    expect(am).toContain("x-api-key: $GATEWAY_API_KEY");
    expect(am).toContain("anthropic-version: 2023-06-01");
  });

  it("SDK code uses each SDK's base URL convention", () => {
    expect(chatCodeSamples("chat-completions", "https://gw.example.com", s, turns)[1]!.code).toContain('baseURL: "https://gw.example.com/v1"');
    expect(chatCodeSamples("responses", "https://gw.example.com", s, turns)[1]!.code).toContain("client.responses.create(");
    expect(chatCodeSamples("messages", "https://gw.example.com", s, turns)[1]!.code).toContain('baseURL: "https://gw.example.com"');
    const g = chatCodeSamples("generate-content", "https://gw.example.com", s, turns)[1]!.code;
    expect(g).toContain('httpOptions: { baseUrl: "https://gw.example.com" }');
    expect(g).toContain('"systemInstruction": "Be brief."');
    expect(g).toContain('"maxOutputTokens": 100');
  });
});

describe("prettyJson", () => {
  it("is JSON that parses back to the same value, short parts on one line", () => {
    const v = { model: "m", messages: [{ role: "user", content: 'he said "x": {y}, z' }, { role: "assistant", content: "a".repeat(120) }], n: null, ok: true };
    const out = prettyJson(v);
    expect(JSON.parse(out)).toEqual(v);
    expect(out).toContain(`{"role": "user", "content": "he said \\"x\\": {y}, z"}`);
    expect(out.split("\n").length).toBeGreaterThan(3);
  });
});
