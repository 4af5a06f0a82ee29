/**
 * The vendors' documented 400 rules for content parts and tool names, enforced by the fake text
 * upstreams (reference/*.md): what a converted request must never carry. Each returns the
 * vendor's own message, or null when the body is acceptable.
 */

/** OpenAI (chat and Responses) and Anthropic tool names. Gemini also allows `.` and `:`, up to 128. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const GEMINI_TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;
const DATA_URL = /^data:[^;,]+;base64,/;

const badName = (where: string, name: unknown) =>
  `Invalid '${where}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'. Got ${JSON.stringify(name)}.`;

export function refuseOpenAIChat(body: any): string | null {
  for (const [i, t] of ((body?.tools ?? []) as any[]).entries())
    if (t.type === "function" && !TOOL_NAME.test(t.function?.name)) return badName(`tools[${i}].function.name`, t.function?.name);
  const tc = body?.tool_choice;
  if (tc?.type === "function" && !TOOL_NAME.test(tc.function?.name)) return badName("tool_choice.function.name", tc.function?.name);
  const messages = (body?.messages ?? []) as any[];
  for (const [i, m] of messages.entries()) {
    for (const [k, c] of (m.tool_calls ?? []).entries())
      if (!TOOL_NAME.test(c.function?.name)) return badName(`messages[${i}].tool_calls[${k}].function.name`, c.function?.name);
    // Every call is answered by a tool message, in the run right after the assistant turn.
    const answered = new Set<string>();
    for (const x of messages.slice(i + 1)) {
      if (x.role !== "tool") break;
      answered.add(x.tool_call_id);
    }
    if (m.tool_calls?.some((c: any) => !answered.has(c.id)))
      return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.";
    if (!Array.isArray(m.content)) continue;
    for (const [j, p] of (m.content as any[]).entries()) {
      const where = `messages[${i}].content[${j}]`;
      if (m.role === "tool" && p.type !== "text") return `Invalid '${where}.type': tool messages take text content parts only.`;
      if (p.type === "file") {
        if (m.role !== "user") return `Invalid '${where}': file content is only supported in user messages.`;
        if (p.file?.file_id == null && p.file?.file_data == null) return `Missing required parameter: '${where}.file.file_id'.`;
        if (p.file?.file_data != null && !DATA_URL.test(p.file.file_data)) return `Invalid '${where}.file.file_data': expected a base64 data URL.`;
        if (p.file?.file_data != null && typeof p.file.filename !== "string") return `Missing required parameter: '${where}.file.filename'.`;
      }
      if (p.type === "image_url" && !/^(https?:|data:image\/)/.test(p.image_url?.url ?? "")) return `Invalid '${where}.image_url.url': expected an http(s) URL or an image data URL.`;
    }
  }
  return null;
}

export function refuseResponses(body: any): string | null {
  for (const [i, t] of ((body?.tools ?? []) as any[]).entries())
    if (t.type === "function" && !TOOL_NAME.test(t.name)) return badName(`tools[${i}].name`, t.name);
  for (const [i, it] of ((Array.isArray(body?.input) ? body.input : []) as any[]).entries()) {
    if (it.type === "function_call" && !TOOL_NAME.test(it.name)) return badName(`input[${i}].name`, it.name);
    if (it.type === "function_call_output" && Array.isArray(it.output))
      for (const [j, p] of (it.output as any[]).entries())
        if (!["input_text", "input_image", "input_file"].includes(p.type)) return `Invalid value: '${p.type}'. Supported values are: 'input_text', 'input_image', and 'input_file'. (input[${i}].output[${j}].type)`;
    if (!Array.isArray(it.content)) continue;
    for (const [j, p] of (it.content as any[]).entries()) {
      const where = `input[${i}].content[${j}]`;
      if (p.type !== "input_file") continue;
      if (p.file_id == null && p.file_data == null && p.file_url == null) return `Missing required parameter: '${where}.file_id'.`;
      if (p.file_data != null && !DATA_URL.test(p.file_data)) return `Invalid '${where}.file_data': expected a base64 data URL.`;
    }
  }
  return null;
}

export function refuseAnthropic(body: any): string | null {
  for (const [i, t] of ((body?.tools ?? []) as any[]).entries())
    if (!t.type && !TOOL_NAME.test(t.name)) return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
  const tc = body?.tool_choice;
  if (tc?.type === "tool" && !TOOL_NAME.test(tc.name)) return "tool_choice.tool.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'";
  // Claude 4.6 and later refuse a prefilled answer, as any model does with thinking on.
  const last = (body?.messages ?? []).at(-1);
  if (last?.role === "assistant" && (/claude-(opus|sonnet|haiku)-4-[6-9]|claude-\w+-[5-9]/.test(body.model ?? "") || body.thinking?.type === "enabled"))
    return "This model does not support assistant message prefill. The conversation must end with a user message.";
  for (const [i, m] of ((body?.messages ?? []) as any[]).entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, b] of (m.content as any[]).entries()) {
      const where = `messages.${i}.content.${j}`;
      if (b.type === "tool_use" && !TOOL_NAME.test(b.name)) return `${where}.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      if (b.type === "tool_result" && Array.isArray(b.content))
        for (const [k, c] of (b.content as any[]).entries())
          if (!["text", "image", "document", "search_result"].includes(c.type))
            return `${where}.tool_result.content.${k}: Input tag '${c.type}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document'`;
      if (b.type !== "document") continue;
      const src = b.source ?? {};
      if (src.type === "base64" && src.media_type !== "application/pdf") return `${where}.document.source.base64.media_type: Input should be 'application/pdf'`;
      if (src.type === "text" && src.media_type !== "text/plain") return `${where}.document.source.text.media_type: Input should be 'text/plain'`;
      if (!["base64", "text", "url", "content", "file"].includes(src.type)) return `${where}.document.source: Input tag '${src.type}' found using 'type' does not match any of the expected tags`;
    }
  }
  return null;
}

/** Gemini's inline types for documents and images, and its refusal of arbitrary URLs in fileData. */
const GEMINI_INLINE = /^(image\/(png|jpeg|webp|heic|heif)|application\/pdf|text\/plain)$/;

/** What Gemini 3 takes inside a function response (multimodal function responses); earlier models take none. */
const GEMINI_FUNCTION_RESPONSE_INLINE = /^(image\/(png|jpeg|webp)|application\/pdf|text\/plain)$/;

export function refuseGemini(body: any, model = ""): string | null {
  for (const [i, t] of ((body?.tools ?? []) as any[]).entries())
    for (const [k, f] of (t.functionDeclarations ?? []).entries())
      if (!GEMINI_TOOL_NAME.test(f.name)) return `* GenerateContentRequest.tools[${i}].function_declarations[${k}].name: Invalid function name.`;
  for (const [i, c] of ((body?.contents ?? []) as any[]).entries())
    for (const [j, p] of ((c.parts ?? []) as any[]).entries()) {
      if (p.inlineData && !GEMINI_INLINE.test(p.inlineData.mimeType)) return `Unsupported MIME type: ${p.inlineData.mimeType}`;
      for (const fp of (p.functionResponse?.parts ?? []) as any[]) {
        if (!/gemini-3/.test(model)) return `* GenerateContentRequest.contents[${i}].parts[${j}].function_response.parts: multimodal function responses are not supported by this model.`;
        if (!GEMINI_FUNCTION_RESPONSE_INLINE.test(fp.inlineData?.mimeType ?? "")) return `Unsupported MIME type in function response: ${fp.inlineData?.mimeType}`;
      }
      if (p.fileData && !/^(https:\/\/generativelanguage\.googleapis\.com\/|gs:\/\/)/.test(p.fileData.fileUri ?? ""))
        return `* GenerateContentRequest.contents[${i}].parts[${j}].file_data.file_uri: Invalid or unsupported file uri: ${p.fileData.fileUri}`;
    }
  return null;
}
