/** Text adapters by upstream protocol. The route never says `if (provider === …)` beyond this table. */
import { anthropicMessages } from "./anthropic-messages";
import { demoChat } from "./demo-chat";
import { geminiGenerate } from "./gemini-generate";
import { openaiChat } from "./openai-chat";
import { openaiResponses } from "./openai-responses";
import type { TextAdapter } from "./text-types";

const ADAPTERS: Record<string, TextAdapter> = {
  openai: openaiChat,
  "openai-responses": openaiResponses,
  anthropic: anthropicMessages,
  gemini: geminiGenerate,
  demo: demoChat,
};

export function textAdapterFor(protocol: string): TextAdapter | undefined {
  return ADAPTERS[protocol];
}
