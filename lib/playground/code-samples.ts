/**
 * The "view code" panel: the chat request the playground just built, as curl and as the
 * protocol's official SDK, against the user's real base URL with a placeholder key.
 */
import { buildChatRequest, type ChatProtocol, type ChatSettings, type ChatTurn } from "./chat-protocols";

export interface CodeSample {
  id: string;
  label: string;
  code: string;
}

const KEY = "sk-your-key";

function indent(s: string, n: number): string {
  return s.replace(/\n/g, `\n${" ".repeat(n)}`);
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function chatCodeSamples(protocol: ChatProtocol, baseUrl: string, s: ChatSettings, turns: ChatTurn[]): CodeSample[] {
  const base = baseUrl.replace(/\/+$/, "");
  const req = buildChatRequest(protocol, s, turns.length ? turns : [{ role: "user", text: "Hello!" }]);
  const authHeader = protocol === "messages" ? `-H "x-api-key: $GATEWAY_API_KEY"` : protocol === "generate-content" ? `-H "x-goog-api-key: $GATEWAY_API_KEY"` : `-H "Authorization: Bearer $GATEWAY_API_KEY"`;
  const extra = Object.entries(req.headers).map(([k, v]) => ` \\\n  -H "${k}: ${v}"`).join("");
  const curl = `export GATEWAY_API_KEY="${KEY}"

curl -N "${base}${req.path}" \\
  ${authHeader} \\
  -H "Content-Type: application/json"${extra} \\
  -d ${shellQuote(JSON.stringify(req.body, null, 2))}`;
  const samples: CodeSample[] = [{ id: "curl", label: "curl", code: curl }];
  const body = { ...req.body };
  switch (protocol) {
    case "chat-completions": {
      samples.push({
        id: "sdk",
        label: "OpenAI SDK (TypeScript)",
        code: `import OpenAI from "openai";

const client = new OpenAI({ baseURL: "${base}/v1", apiKey: process.env.GATEWAY_API_KEY }); // "${KEY}"

const stream = await client.chat.completions.create(${indent(JSON.stringify(body, null, 2), 0)});
for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta?.content ?? "");
}`,
      });
      break;
    }
    case "responses": {
      samples.push({
        id: "sdk",
        label: "OpenAI SDK (TypeScript)",
        code: `import OpenAI from "openai";

const client = new OpenAI({ baseURL: "${base}/v1", apiKey: process.env.GATEWAY_API_KEY }); // "${KEY}"

const stream = await client.responses.create(${JSON.stringify(body, null, 2)});
for await (const event of stream) {
  if (event.type === "response.output_text.delta") process.stdout.write(event.delta);
}`,
      });
      break;
    }
    case "messages": {
      samples.push({
        id: "sdk",
        label: "Anthropic SDK (TypeScript)",
        code: `import Anthropic from "@anthropic-ai/sdk";

// The base URL has no /v1: the SDK adds it.
const client = new Anthropic({ baseURL: "${base}", apiKey: process.env.GATEWAY_API_KEY }); // "${KEY}"

const stream = await client.messages.create(${JSON.stringify(body, null, 2)});
for await (const event of stream) {
  if (event.type === "content_block_delta" && event.delta.type === "text_delta") process.stdout.write(event.delta.text);
}`,
      });
      break;
    }
    case "generate-content": {
      const cfg: Record<string, unknown> = { ...((body.generationConfig as Record<string, unknown>) ?? {}) };
      if (body.systemInstruction) cfg.systemInstruction = (body.systemInstruction as { parts: { text: string }[] }).parts[0]!.text;
      const call = { model: s.model, contents: body.contents, ...(Object.keys(cfg).length ? { config: cfg } : {}) };
      samples.push({
        id: "sdk",
        label: "Google Gen AI SDK (TypeScript)",
        code: `import { GoogleGenAI } from "@google/genai";

const ai = new GoogleGenAI({ apiKey: process.env.GATEWAY_API_KEY, httpOptions: { baseUrl: "${base}" } }); // "${KEY}"

const stream = await ai.models.generateContentStream(${JSON.stringify(call, null, 2)});
for await (const chunk of stream) {
  process.stdout.write(chunk.text ?? "");
}`,
      });
      break;
    }
  }
  return samples;
}
