/**
 * Images and documents inside tool results (an agent reading a screenshot or a file through a
 * tool), in both directions (docs/conversion-policy.md, "What a tool read"): each upstream gets
 * them in the form it takes, the fakes enforcing the vendors' own 400 rules, nothing named as
 * dropped; what cannot be carried is a 400 naming the exact path.
 */
import { describe, expect, it } from "vitest";
import { useFourTextHost, type Up } from "../../../tests/fakes/four-text-upstreams";

const four = useFourTextHost((route) => ({
  // Gemini 3 takes media inside the function response; earlier models beside it.
  "m-gemini-3": [{ ...route("gemini"), upstreamModel: "gemini-3-fake" }],
}));

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PNG_URL = `data:image/png;base64,${PNG}`;
const PDF = Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64");

const post = (path: string, body: unknown) => fetch(`${four.host.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const lastCall = (up: Up) => four.fakes[up].generationRequests().at(-1)!;
const reset = () => Object.values(four.fakes).forEach((f) => f.reset());
async function ok(r: Response) {
  const text = await r.text();
  expect(r.status, text).toBe(200);
  expect(r.headers.get("x-gateway-dropped-params")).toBeNull();
}

const tools = [{ name: "Read", input_schema: { type: "object", properties: { file_path: { type: "string" } } } }];
/** Claude Code's Read of a screenshot: the image inside the tool_result. */
const claudeCodeRead = (model: string, extra: unknown[] = []) =>
  post("/v1/messages", {
    model,
    max_tokens: 50,
    tools,
    messages: [
      { role: "user", content: "What does the screenshot show?" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "shot.png" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "Read image (1 KB)" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }, ...extra] }] },
    ],
  });

describe("a tool's image reaches chat-completions and Gemini upstreams (was a 400)", () => {
  it("chat: the tool message keeps its text and says where the image went; the image opens the user message after the run", async () => {
    reset();
    await ok(await claudeCodeRead("m-openai"));
    const { body, refused } = lastCall("openai");
    expect(refused).toBeUndefined();
    expect(body.messages.at(-2)).toEqual({ role: "tool", tool_call_id: "toolu_1", content: "Read image (1 KB)\n\n[1 attachment of this result follows in the next user message]" });
    expect(body.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Attachments of the result of tool call toolu_1:" },
        { type: "image_url", image_url: { url: PNG_URL } },
      ],
    });
  });

  it("chat: parallel results stay one run of tool messages; every attachment follows the run", async () => {
    reset();
    const r = await post("/v1/responses", {
      model: "m-openai",
      input: [
        { role: "user", content: "Compare" },
        { type: "function_call", call_id: "c1", name: "shot", arguments: "{}" },
        { type: "function_call", call_id: "c2", name: "shot", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: [{ type: "input_image", image_url: PNG_URL }] },
        { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "second" }, { type: "input_image", image_url: PNG_URL }] },
      ],
    });
    await ok(r);
    const { body, refused } = lastCall("openai");
    expect(refused).toBeUndefined();
    expect(body.messages.slice(-3).map((m: any) => m.role)).toEqual(["tool", "tool", "user"]);
    expect(body.messages.at(-3).content).toBe("[1 attachment of this result follows in the next user message]");
    expect(body.messages.at(-1).content.filter((p: any) => p.type === "image_url")).toHaveLength(2);
  });

  it("Gemini 2.5: an inlineData part beside the function response", async () => {
    reset();
    await ok(await claudeCodeRead("m-gemini"));
    const { body, refused } = lastCall("gemini");
    expect(refused).toBeUndefined();
    expect(body.contents.at(-1).parts).toEqual([
      { functionResponse: { name: "Read", response: { output: "Read image (1 KB)" } } },
      { text: "Attachments of the result of Read:" },
      { inlineData: { mimeType: "image/png", data: PNG } },
    ]);
  });

  it("Gemini 3: inside the function response (functionResponse.parts[].inlineData)", async () => {
    reset();
    await ok(await claudeCodeRead("m-gemini-3", [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF } }]));
    const { body, refused } = lastCall("gemini");
    expect(refused).toBeUndefined();
    expect(body.contents.at(-1).parts).toEqual([
      {
        functionResponse: {
          name: "Read",
          response: { output: "Read image (1 KB)" },
          parts: [{ inlineData: { mimeType: "image/png", data: PNG } }, { inlineData: { mimeType: "application/pdf", data: PDF } }],
        },
      },
    ]);
  });

  it("Responses: function_call_output with an input_image content array", async () => {
    reset();
    await ok(await claudeCodeRead("m-responses"));
    const { body, refused } = lastCall("responses");
    expect(refused).toBeUndefined();
    expect(body.input.at(-1)).toEqual({
      type: "function_call_output",
      call_id: "toolu_1",
      output: [
        { type: "input_text", text: "Read image (1 KB)" },
        { type: "input_image", image_url: PNG_URL, detail: "auto" },
      ],
    });
  });
});

describe("a Gemini client's tool image (functionResponse.parts, what @ai-sdk/google sends) is never dropped", () => {
  const geminiClient = (model: string, frParts: unknown[]) =>
    post(`/v1beta/models/${model}:generateContent`, {
      contents: [
        { role: "user", parts: [{ text: "What does the screenshot show?" }] },
        { role: "model", parts: [{ functionCall: { id: "call_1", name: "screenshot", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { id: "call_1", name: "screenshot", response: { name: "screenshot", content: "Tool executed successfully." }, parts: frParts } }] },
      ],
      tools: [{ functionDeclarations: [{ name: "screenshot", parameters: { type: "object", properties: {} } }] }],
    });

  it("Anthropic: image blocks inside the tool_result", async () => {
    reset();
    await ok(await geminiClient("m-anthropic", [{ inlineData: { mimeType: "image/png", data: PNG } }]));
    const { body, refused } = lastCall("anthropic");
    expect(refused).toBeUndefined();
    expect(body.messages.at(-1).content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "call_1",
      content: [
        { type: "text", text: '{"name":"screenshot","content":"Tool executed successfully."}' },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ],
    });
  });

  it("Responses: input_image in the function_call_output; chat: a user message after the tool message", async () => {
    reset();
    await ok(await geminiClient("m-responses", [{ inlineData: { mimeType: "image/png", data: PNG } }]));
    expect(lastCall("responses").body.input.at(-1).output).toContainEqual({ type: "input_image", image_url: PNG_URL, detail: "auto" });
    await ok(await geminiClient("m-openai", [{ inlineData: { mimeType: "image/png", data: PNG } }, { inlineData: { mimeType: "application/pdf", data: PDF } }]));
    const { body, refused } = lastCall("openai");
    expect(refused).toBeUndefined();
    expect(body.messages.at(-2).content).toMatch(/\[2 attachments of this result follow in the next user message\]$/);
    expect(body.messages.at(-1).content).toEqual([
      { type: "text", text: "Attachments of the result of tool call call_1:" },
      { type: "image_url", image_url: { url: PNG_URL } },
      { type: "file", file: { filename: "document.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
    ]);
  });

  it("what cannot be carried is a 400 whose param is the exact path, before any upstream call", async () => {
    reset();
    const r = await geminiClient("m-anthropic", [{ inlineData: { mimeType: "audio/wav", data: "AA" } }]);
    expect(r.status).toBe(400);
    const e = ((await r.json()) as any).error;
    expect(e.message).toMatch(/^contents\[2\]\.parts\[0\]\.functionResponse\.parts\[0\]\.inlineData\.mimeType: /);
    const rs = await post("/v1/responses", {
      model: "m-gemini",
      input: [
        { type: "function_call", call_id: "c1", name: "read", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: [{ type: "input_file", file_id: "file-abc" }] },
      ],
    });
    expect(rs.status).toBe(400);
    const e2 = ((await rs.json()) as any).error;
    expect(e2.message).toMatch(/^input\[1\]\.output\[0\]\.file_id: /);
    expect(e2.param).toBe("input[1].output[0].file_id");
    expect(four.fakes.anthropic.generationRequests()).toHaveLength(0);
    expect(four.fakes.gemini.generationRequests()).toHaveLength(0);
  });
});
