import type { InboundProtocol } from "../types";
import { parseGenerateContentRequest } from "./parse-request";
import { createGenerateContentStreamEncoder, renderGenerateContentResponse } from "./render";

/** POST /v1beta/models/{model}:generateContent and :streamGenerateContent (reference/generate-content.md). */
export const generateContent: InboundProtocol = {
  name: "generate-content",
  errorStyle: "gemini",
  parseRequest: (body, opts) => parseGenerateContentRequest(body, opts),
  fieldName: (f) =>
    ((
      {
        temperature: "generationConfig.temperature",
        top_p: "generationConfig.topP",
        top_k: "generationConfig.topK",
        stop: "generationConfig.stopSequences",
        max_tokens: "generationConfig.maxOutputTokens",
        seed: "generationConfig.seed",
        presence_penalty: "generationConfig.presencePenalty",
        frequency_penalty: "generationConfig.frequencyPenalty",
        response_format: "generationConfig.responseMimeType",
        tool_choice: "toolConfig",
        messages: "contents",
        image: "contents[].parts[].fileData",
      }
    ) as Record<string, string>)[f] ?? f,
  renderResponse: renderGenerateContentResponse,
  createStreamEncoder: createGenerateContentStreamEncoder,
};
