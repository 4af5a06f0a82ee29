/** Canonical request → OpenAI Chat Completions wire body (reference/chat-completions.md). */
import { documentFilename, imageToUrl, partsText, type CanonicalRequest, type CanonicalTool, type DocumentPart, type ToolResultContent } from "../canonical";
import { boundedUser } from "../conversion/policy";
import { openaiReasoningEffort } from "../conversion/reasoning";
import { bareToolId } from "../conversion/signatures";
import { isInexpressible, type Built, type Inexpressible } from "./text-types";

/**
 * A Responses `custom` tool (free text, optional grammar) as a function with one string
 * parameter: every upstream but OpenAI Responses knows only functions. The grammar goes into
 * the description so the model still sees it.
 */
export function customToolAsFunction(t: CanonicalTool): { description?: string; parameters: Record<string, unknown> } {
  const f = t.custom?.format as { type?: string; syntax?: string; definition?: string } | undefined;
  let description = t.description ?? "";
  if (f?.type === "grammar" && f.definition)
    description += `${description ? "\n\n" : ""}The input must match this ${f.syntax ?? ""} grammar:\n${f.definition}`;
  return {
    ...(description ? { description } : {}),
    parameters: { type: "object", properties: { input: { type: "string", description: "The raw input of the tool." } }, required: ["input"] },
  };
}

/** A canonical tool as a JSON-Schema function (name, description, parameters). */
export function functionOf(t: CanonicalTool): { name: string; description?: string; parameters: Record<string, unknown> } {
  if (t.custom) return { name: t.name, ...customToolAsFunction(t) };
  return { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters ?? { type: "object", properties: {} } };
}

/** A document as a chat `file` part (inline data and a file name) or, plain text, a text part. */
export function chatFilePart(p: DocumentPart): Record<string, unknown> | Inexpressible {
  const src = p.source;
  if (src.kind === "text") return { type: "text", text: src.text };
  if (src.kind === "url")
    return { ok: false, error: { field: p.path ?? "messages", message: "document URLs are not supported by this model; send the file inline as base64" } };
  return { type: "file", file: { filename: documentFilename(p), file_data: `data:${src.mediaType};base64,${src.data}` } };
}

/** A text, image or document part as chat user content. */
function userPart(p: ToolResultContent): Record<string, unknown> | Inexpressible {
  if (p.type === "text") return { type: "text", text: p.text };
  if (p.type === "image") return { type: "image_url", image_url: { url: imageToUrl(p.source) } };
  return chatFilePart(p);
}

/** What a tool message says when its images or files had to follow in the next user message. */
export function toolAttachmentNote(n: number): string {
  return `[${n === 1 ? "1 attachment" : `${n} attachments`} of this result follow${n === 1 ? "s" : ""} in the next user message]`;
}

/** CC rejects more than 4 stop sequences. */
export const OPENAI_MAX_STOP = 4;

export function toOpenAIChatBody(req: CanonicalRequest, upstreamModel: string): Built | Inexpressible {
  if (req.stop && req.stop.length > OPENAI_MAX_STOP)
    return { ok: false, error: { field: "stop", message: `at most ${OPENAI_MAX_STOP} stop sequences are accepted by this model` } };

  const messages: Record<string, unknown>[] = [];
  if (req.system) messages.push({ role: "system", content: req.system });
  for (let i = 0; i < req.messages.length; i++) {
    const m = req.messages[i]!;
    if (m.role === "assistant") {
      let text = "";
      const toolCalls: unknown[] = [];
      for (const p of m.parts) {
        if (p.type === "text") text += p.text;
        else if (p.type === "tool_call")
          toolCalls.push({ id: bareToolId(p.id), type: "function", function: { name: p.name, arguments: p.arguments } });
        else if (p.type === "reasoning") continue; // another vendor's reasoning is never replayed
        else return { ok: false, error: { field: "messages", message: `a ${p.type} part cannot appear in an assistant turn` } };
      }
      const msg: Record<string, unknown> = { role: "assistant", content: text === "" && toolCalls.length ? null : text };
      if (toolCalls.length) msg.tool_calls = toolCalls;
      messages.push(msg);
      continue;
    }
    // Tool results become `tool` messages right after the assistant turn; the rest one user message.
    // A tool message carries text only: what a tool read (a screenshot, a file) opens that user
    // message, right after the run of tool messages, and each tool message says so.
    const attachments: Record<string, unknown>[] = [];
    const content: Record<string, unknown>[] = [];
    for (const p of m.parts) {
      if (p.type === "tool_result") {
        const id = bareToolId(p.callId);
        let text = partsText(p.content);
        if (p.isError) text = text ? `Error: ${text}` : "Error:";
        const media = p.content.filter((c) => c.type !== "text");
        if (media.length) {
          text += `${text ? "\n\n" : ""}${toolAttachmentNote(media.length)}`;
          attachments.push({ type: "text", text: `Attachments of the result of tool call ${id}:` });
          for (const c of media) {
            const part = userPart(c);
            if (isInexpressible(part)) return part;
            attachments.push(part);
          }
        }
        messages.push({ role: "tool", tool_call_id: id, content: text });
      } else if (p.type === "text" || p.type === "image" || p.type === "document") {
        const part = userPart(p);
        if (isInexpressible(part)) return part;
        content.push(part);
      } else if (p.type === "reasoning") continue;
      else return { ok: false, error: { field: "messages", message: "a tool call cannot appear in a user turn" } };
    }
    content.unshift(...attachments);
    if (content.length) {
      const onlyText = content.every((c) => c.type === "text");
      messages.push({ role: "user", content: onlyText ? content.map((c) => c.text).join("") : content });
    }
  }

  const body: Record<string, unknown> = { model: upstreamModel, messages };
  if (req.maxOutputTokens !== undefined) body.max_completion_tokens = req.maxOutputTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.stop?.length) body.stop = req.stop;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.logprobs) body.logprobs = true;
  if (req.topLogprobs !== undefined) body.top_logprobs = req.topLogprobs;
  if (req.presencePenalty !== undefined) body.presence_penalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) body.frequency_penalty = req.frequencyPenalty;
  if (req.user !== undefined) body.user = boundedUser(req.user);
  if (req.verbosity !== undefined) body.verbosity = req.verbosity;
  if (req.serviceTier !== undefined) body.service_tier = req.serviceTier;
  const effort = openaiReasoningEffort(req.reasoning, upstreamModel);
  if (effort) body.reasoning_effort = effort;
  // OpenAI caches prefixes by itself; these route and keep its cache (cache_control is Anthropic's, not sent).
  if (req.promptCacheKey !== undefined) body.prompt_cache_key = req.promptCacheKey;
  if (req.promptCacheRetention !== undefined) body.prompt_cache_retention = req.promptCacheRetention;
  if (req.tools?.length) body.tools = req.tools.map((t) => ({ type: "function", function: functionOf(t) }));
  if (req.toolChoice)
    body.tool_choice = req.toolChoice.type === "tool" ? { type: "function", function: { name: req.toolChoice.name } } : req.toolChoice.type;
  if (req.parallelToolCalls !== undefined && req.tools?.length) body.parallel_tool_calls = req.parallelToolCalls;
  const rf = req.responseFormat;
  if (rf?.type === "json_object") body.response_format = { type: "json_object" };
  else if (rf?.type === "json_schema")
    body.response_format = { type: "json_schema", json_schema: { name: rf.name ?? "response", schema: rf.schema, ...(rf.strict !== undefined ? { strict: rf.strict } : {}) } };
  if (req.stream) {
    body.stream = true;
    // Always ask for usage: billing needs it even when the client did not.
    body.stream_options = { include_usage: true };
  }
  return { ok: true, value: body };
}
