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

/** JSON on one line with a space after `:` and `,` (strings are left exactly as JSON.stringify writes them). */
function inlineJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inlineJson(v)}`).join(", ")}}`;
}

/** JSON indented by two, with any object or array that fits in 100 characters kept on one line (messages stay readable). */
export function prettyJson(value: unknown, depth = 0): string {
  const flat = inlineJson(value);
  if (value === null || typeof value !== "object" || flat.length + depth * 2 <= 100) return flat;
  const pad = "  ".repeat(depth + 1);
  const end = "  ".repeat(depth);
  if (Array.isArray(value)) return `[\n${value.map((v) => pad + prettyJson(v, depth + 1)).join(",\n")}\n${end}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${prettyJson(v, depth + 1)}`).join(",\n")}\n${end}}`;
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
  -d ${shellQuote(prettyJson(req.body))}`;
  const samples: CodeSample[] = [{ id: "curl", label: "curl", code: curl }];
  const body = { ...req.body };
  switch (protocol) {
    case "chat-completions": {
      samples.push({
        id: "sdk",
        label: "OpenAI SDK (TypeScript)",
        code: `import OpenAI from "openai";

const client = new OpenAI({ baseURL: "${base}/v1", apiKey: process.env.GATEWAY_API_KEY }); // "${KEY}"

const stream = await client.chat.completions.create(${prettyJson(body)});
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

const stream = await client.responses.create(${prettyJson(body)});
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

const stream = await client.messages.create(${prettyJson(body)});
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

const stream = await ai.models.generateContentStream(${prettyJson(call)});
for await (const chunk of stream) {
  process.stdout.write(chunk.text ?? "");
}`,
      });
      break;
    }
  }
  return samples;
}
