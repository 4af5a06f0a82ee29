export { chatCompletions } from "./chat-completions";
export { responses } from "./responses";
export { messages } from "./messages";
export { generateContent } from "./generate-content";
export type { InboundProtocol, RenderContext, StreamEncoder, CanonicalField } from "./types";
