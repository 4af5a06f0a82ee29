import type { InboundProtocol } from "../types";
import { parseChatRequest } from "./parse-request";
import { createChatStreamEncoder, renderChatResponse } from "./render";

/** POST /v1/chat/completions (reference/chat-completions.md). */
export const chatCompletions: InboundProtocol = {
  name: "chat-completions",
  errorStyle: "openai",
  parseRequest: (body) => parseChatRequest(body),
  fieldName: (f) =>
    ({ max_tokens: "max_completion_tokens", image: "messages[].content[].image_url" } as Record<string, string>)[f] ??
    f,
  renderResponse: renderChatResponse,
  createStreamEncoder: createChatStreamEncoder,
};
