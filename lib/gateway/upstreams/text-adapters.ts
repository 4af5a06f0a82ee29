/** Text adapters by upstream protocol. The route never says `if (provider === …)` beyond this table. */
import { anthropicMessages } from "./anthropic-messages";
import { azureTextAdapter } from "./azure-openai";
import { bedrockConverse } from "./bedrock-converse";
import { vertexTextAdapter } from "./vertex";
import { demoChat } from "./demo-chat";
import { geminiGenerate } from "./gemini-generate";
import { openaiChat } from "./openai-chat";
import { openaiResponses } from "./openai-responses";
import type { TextAdapter } from "./text-types";
import type { ModelRoute } from "../model-route";

const ADAPTERS: Record<string, TextAdapter | ((route: ModelRoute) => TextAdapter)> = {
  openai: openaiChat,
  "openai-responses": openaiResponses,
  anthropic: anthropicMessages,
  gemini: geminiGenerate,
  // Chat Completions or the Responses API, as the upstream is set.
  "azure-openai": (r) => azureTextAdapter(r.upstream),
  bedrock: bedrockConverse,
  // Gemini or Claude, by the model's publisher.
  vertex: vertexTextAdapter,
  demo: demoChat,
};

export function textAdapterFor(route: ModelRoute): TextAdapter | undefined {
  const a = ADAPTERS[route.upstream.protocol];
  return typeof a === "function" ? a(route) : a;
}
