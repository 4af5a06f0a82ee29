import type { InboundProtocol } from "../types";
import { parseResponsesRequest } from "./parse-request";
import { createResponsesStreamEncoder, renderResponsesResponse } from "./render";

/** POST /v1/responses (reference/responses.md). Stateless: no store, no chaining. */
export const responses: InboundProtocol = {
  name: "responses",
  errorStyle: "openai",
  parseRequest: (body) => parseResponsesRequest(body),
  fieldName: (f) =>
    ({ max_tokens: "max_output_tokens", messages: "input", response_format: "text.format", image: "input[].content[].image_url" } as Record<string, string>)[f] ?? f,
  renderResponse: renderResponsesResponse,
  createStreamEncoder: createResponsesStreamEncoder,
};
