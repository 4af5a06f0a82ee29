/** Text adapters by upstream protocol. The route never says `if (provider === …)` beyond this table. */
import { anthropicMessages } from "./anthropic-messages";
import { azureTextAdapter } from "./azure-openai";
import { bedrockConverse } from "./bedrock-converse";
import { demoChat } from "./demo-chat";
import { geminiGenerate } from "./gemini-generate";
import { openaiChat } from "./openai-chat";
import { openaiResponses } from "./openai-responses";
import type { TextAdapter } from "./text-types";
import type { UpstreamInfo } from "../model-route";

const ADAPTERS: Record<string, TextAdapter | ((u: UpstreamInfo) => TextAdapter)> = {
  openai: openaiChat,
  "openai-responses": openaiResponses,
  anthropic: anthropicMessages,
  gemini: geminiGenerate,
  // Chat Completions or the Responses API, as the upstream is set.
  "azure-openai": azureTextAdapter,
  bedrock: bedrockConverse,
  demo: demoChat,
};

export function textAdapterFor(upstream: UpstreamInfo): TextAdapter | undefined {
  const a = ADAPTERS[upstream.protocol];
  return typeof a === "function" ? a(upstream) : a;
}
