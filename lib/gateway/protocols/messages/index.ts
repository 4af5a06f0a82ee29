import type { InboundProtocol } from "../types";
import { parseMessagesRequest } from "./parse-request";
import { createMessagesStreamEncoder, renderMessagesResponse } from "./render";

/** POST /v1/messages (reference/messages.md). */
export const messages: InboundProtocol = {
  name: "messages",
  errorStyle: "anthropic",
  parseRequest: (body) => parseMessagesRequest(body),
  fieldName: (f) =>
    ({ stop: "stop_sequences", image: "messages[].content[].source", response_format: "output_config", parallel_tool_calls: "tool_choice.disable_parallel_tool_use" } as Record<string, string>)[f] ?? f,
  renderResponse: renderMessagesResponse,
  createStreamEncoder: createMessagesStreamEncoder,
};
