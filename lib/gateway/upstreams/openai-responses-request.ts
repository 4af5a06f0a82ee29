/** Canonical request → OpenAI Responses wire body (reference/responses.md), for converted clients. */
import { documentFilename, imageToUrl, partsText, type CanonicalRequest, type ToolResultContent } from "../canonical";
import { boundedUser, logprobsRefusal } from "../conversion/policy";
import { openaiReasoningEffort } from "../conversion/reasoning";
import { bareToolId } from "../conversion/signatures";
import { functionOf } from "./openai-chat-request";
import type { Inexpressible } from "./text-types";
import type { Ok } from "../../result";

/** A user or tool-output content part as Responses input content. */
function inputPart(p: ToolResultContent): Record<string, unknown> {
  if (p.type === "text") return { type: "input_text", text: p.text };
  if (p.type === "image") return { type: "input_image", image_url: imageToUrl(p.source), detail: "auto" };
  const src = p.source;
  if (src.kind === "text") return { type: "input_text", text: src.text };
  if (src.kind === "url") return { type: "input_file", file_url: src.url };
  return { type: "input_file", filename: documentFilename(p), file_data: `data:${src.mediaType};base64,${src.data}` };
}

export function toOpenAIResponsesBody(req: CanonicalRequest, upstreamModel: string): Ok<Record<string, unknown>> | Inexpressible {
  // Responses has no stop sequences, top_k, seed or penalties: refused, never dropped.
  if (req.stop?.length) return { ok: false, error: { field: "stop", message: "stop sequences are not supported by this model's upstream" } };
  if (req.topK !== undefined) return { ok: false, error: { field: "top_k", message: "not supported by this model" } };
  if (req.seed !== undefined) return { ok: false, error: { field: "seed", message: "not supported by this model" } };
  if (req.presencePenalty !== undefined) return { ok: false, error: { field: "presence_penalty", message: "not supported by this model" } };
  if (req.frequencyPenalty !== undefined) return { ok: false, error: { field: "frequency_penalty", message: "not supported by this model" } };
  const noLogprobs = logprobsRefusal(req);
  if (noLogprobs) return noLogprobs;

  const input: Record<string, unknown>[] = [];
  for (const m of req.messages) {
    if (m.role === "assistant") {
      let text = "";
      const flush = () => {
        if (text !== "") input.push({ role: "assistant", content: text });
        text = "";
      };
      for (const p of m.parts) {
        if (p.type === "text") text += p.text;
        else if (p.type === "tool_call") {
          flush();
          input.push({ type: "function_call", call_id: bareToolId(p.id), name: p.name, arguments: p.arguments });
        } else if (p.type === "reasoning") continue; // another vendor's reasoning is never replayed
        else return { ok: false, error: { field: "messages", message: `a ${p.type} part cannot appear in an assistant turn` } };
      }
      flush();
      continue;
    }
    let content: Record<string, unknown>[] = [];
    const flush = () => {
      if (content.length) input.push({ role: "user", content });
      content = [];
    };
    for (const p of m.parts) {
      if (p.type === "text" || p.type === "image" || p.type === "document") content.push(inputPart(p));
      else if (p.type === "tool_result") {
        flush();
        // What the tool read (images, files) goes in the output as content parts, as Responses takes it.
        const text = partsText(p.content);
        const output = p.content.some((c) => c.type !== "text")
          ? [...(p.isError ? [{ type: "input_text", text: "Error:" }] : []), ...p.content.map(inputPart)]
          : p.isError
            ? `Error: ${text}`
            : text;
        input.push({ type: "function_call_output", call_id: bareToolId(p.callId), output });
      } else if (p.type === "reasoning") continue;
      else return { ok: false, error: { field: "messages", message: "a tool call cannot appear in a user turn" } };
    }
    flush();
  }

  // Converted requests are not stored upstream: the gateway is the store (stored-responses/).
  const body: Record<string, unknown> = { model: upstreamModel, input, store: false };
  if (req.system) body.instructions = req.system;
  if (req.maxOutputTokens !== undefined) body.max_output_tokens = req.maxOutputTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.user !== undefined) body.user = boundedUser(req.user);
  const effort = openaiReasoningEffort(req.reasoning, upstreamModel);
  if (effort) body.reasoning = { effort, ...(req.reasoning?.show ? { summary: "auto" } : {}) };
  // Prompt-cache routing and retention (cache_control is Anthropic's: OpenAI caches prefixes by itself).
  if (req.promptCacheKey !== undefined) body.prompt_cache_key = req.promptCacheKey;
  if (req.promptCacheRetention !== undefined) body.prompt_cache_retention = req.promptCacheRetention;
  if (req.tools?.length)
    body.tools = req.tools.map((t) => ({ type: "function", ...functionOf(t), strict: false }));
  if (req.toolChoice) body.tool_choice = req.toolChoice.type === "tool" ? { type: "function", name: req.toolChoice.name } : req.toolChoice.type;
  if (req.parallelToolCalls !== undefined && req.tools?.length) body.parallel_tool_calls = req.parallelToolCalls;
  const rf = req.responseFormat;
  if (rf?.type === "json_object") body.text = { format: { type: "json_object" } };
  else if (rf?.type === "json_schema")
    body.text = { format: { type: "json_schema", name: rf.name ?? "response", schema: rf.schema, ...(rf.strict !== undefined ? { strict: rf.strict } : {}) } };
  if (req.stream) body.stream = true;
  return { ok: true, value: body };
}
