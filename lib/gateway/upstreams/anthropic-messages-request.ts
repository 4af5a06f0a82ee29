/** Canonical request → Anthropic Messages wire body (reference/messages.md, conversion.md). */
import { argumentsToObject, type CanonicalRequest, type DocumentPart, type ImagePart } from "../canonical";
import { anthropicCacheControl } from "../cache-control";
import { logprobsRefusal } from "../conversion/policy";
import { anthropicThinking } from "../conversion/reasoning";
import { bareToolId } from "../conversion/signatures";
import { customToolAsFunction } from "./openai-chat-request";
import { isInexpressible, type Built, type Inexpressible } from "./text-types";

const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** AM accepts only [A-Za-z0-9_-] in tool ids; the same mapping on both sides keeps pairs matched. */
export function anthropicToolId(id: string): string {
  const s = bareToolId(id).replace(/[^A-Za-z0-9_-]/g, "_");
  return s === "" ? "toolu_empty" : s;
}

function imageBlock(p: ImagePart): Record<string, unknown> | Inexpressible {
  const src = p.source;
  if (src.kind === "url") return { type: "image", source: { type: "url", url: src.url } };
  if (!IMAGE_TYPES.has(src.mediaType))
    return { ok: false, error: { field: p.path ?? "image", message: `image type ${src.mediaType} is not supported by this model (jpeg, png, gif, webp are)` } };
  return { type: "image", source: { type: "base64", media_type: src.mediaType, data: src.data } };
}

/** AM documents: PDFs (base64 or URL) and plain text; anything else is named in a 400. */
function documentBlock(p: DocumentPart): Record<string, unknown> | Inexpressible {
  const title = p.filename ? { title: p.filename } : {};
  const src = p.source;
  if (src.kind === "text") return { type: "document", source: { type: "text", media_type: "text/plain", data: src.text }, ...title };
  if (src.kind === "url") return { type: "document", source: { type: "url", url: src.url }, ...title };
  if (src.mediaType !== "application/pdf")
    return { ok: false, error: { field: p.path ?? "messages", message: `documents of type ${src.mediaType} are not supported by this model (PDF and plain text are)` } };
  return { type: "document", source: { type: "base64", media_type: src.mediaType, data: src.data }, ...title };
}

/** What JSON mode (`response_format: {type: "json_object"}`) becomes for Claude. */
export const JSON_MODE_INSTRUCTION = "Respond with exactly one valid JSON object and nothing else: no prose, no Markdown code fences.";

/** The assistant turn JSON mode starts Claude's answer with; the answer is shown with it. */
export const JSON_PREFILL = "{";

/**
 * Claude models that continue a prefilled assistant turn: up to the 4.5 generation (4.6 and later
 * refuse a prefill with a 400). Structured outputs need a schema, so they cannot express "any
 * JSON object".
 */
export function takesPrefill(upstreamModel: string): boolean {
  const m = upstreamModel.replace(/^.*\//, "");
  return /^claude-3/.test(m) || /^claude-(?:opus|sonnet|haiku)-4(?:-[015])?(?:-\d{8})?(?:$|@)/.test(m);
}

export function toAnthropicBody(req: CanonicalRequest, upstreamModel: string): Built | Inexpressible {
  if (req.temperature !== undefined && req.temperature > 1)
    return { ok: false, error: { field: "temperature", message: `must be between 0 and 1 for this model, got ${req.temperature}` } };
  if (req.maxOutputTokens === undefined) return { ok: false, error: { field: "max_tokens", message: "required by this model" } };
  const noLogprobs = logprobsRefusal(req);
  if (noLogprobs) return noLogprobs;

  const messages: Array<{ role: string; content: Record<string, unknown>[] }> = [];
  for (const m of req.messages) {
    const blocks: Record<string, unknown>[] = [];
    const results: Record<string, unknown>[] = [];
    for (const p of m.parts) {
      if (p.type === "reasoning") {
        // Only Anthropic's own signed thinking goes back, and only in assistant turns.
        if (p.origin !== "anthropic" || m.role !== "assistant") continue;
        if (p.redacted) blocks.push({ type: "redacted_thinking", data: p.redacted });
        else if (p.signature) blocks.push({ type: "thinking", thinking: p.text, signature: p.signature });
      } else if (p.type === "text") {
        if (p.text !== "") blocks.push({ type: "text", text: p.text, ...anthropicCacheControl(p.cacheControl) });
      } else if (p.type === "image") {
        const b = imageBlock(p);
        if (isInexpressible(b)) return b;
        blocks.push({ ...b, ...anthropicCacheControl(p.cacheControl) });
      } else if (p.type === "document") {
        const b = documentBlock(p);
        if (isInexpressible(b)) return b;
        blocks.push({ ...b, ...anthropicCacheControl(p.cacheControl) });
      } else if (p.type === "tool_call") {
        blocks.push({ type: "tool_use", id: anthropicToolId(p.id), name: p.name, input: argumentsToObject(p.arguments) });
      } else {
        const content: Record<string, unknown>[] = [];
        for (const c of p.content) {
          if (c.type === "text") {
            if (c.text !== "") content.push({ type: "text", text: c.text, ...anthropicCacheControl(c.cacheControl) });
          } else {
            // Claude reads images and documents inside a tool result as sent.
            const b = c.type === "image" ? imageBlock(c) : documentBlock(c);
            if (isInexpressible(b)) return b;
            content.push({ ...b, ...anthropicCacheControl(c.cacheControl) });
          }
        }
        const r: Record<string, unknown> = { type: "tool_result", tool_use_id: anthropicToolId(p.callId), content, ...anthropicCacheControl(p.cacheControl) };
        if (p.isError) r.is_error = true;
        results.push(r);
      }
    }
    // Tool results lead their user turn; consecutive same-role turns merge (AM wants alternation).
    const content = [...results, ...blocks];
    if (!content.length) continue;
    const last = messages[messages.length - 1];
    if (last && last.role === m.role) last.content.push(...content);
    else messages.push({ role: m.role, content });
  }

  const body: Record<string, unknown> = { model: upstreamModel, max_tokens: req.maxOutputTokens, messages };
  const dropped: string[] = [];
  const thinking = anthropicThinking(req);
  if (thinking) {
    body.thinking = thinking;
    // With thinking on, Anthropic takes no temperature but 1, no top_k, top_p only from 0.95.
    if (req.temperature !== undefined && req.temperature !== 1) dropped.push("temperature");
    if (req.topK !== undefined) dropped.push("top_k");
    if (req.topP !== undefined && req.topP < 0.95) dropped.push("top_p");
  } else {
    // Without thinking blocks, earlier ones in the history would be refused.
    for (const m of messages) m.content = m.content.filter((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
  }
  // Cache breakpoints in the system prompt need it as blocks (the TTL included).
  const systemBlocks = req.systemBlocks?.filter((b) => b.text !== "");
  if (systemBlocks?.length) body.system = systemBlocks.map((b) => ({ type: "text", text: b.text, ...anthropicCacheControl(b.cacheControl) }));
  else if (req.system) body.system = req.system;
  // JSON mode has no switch on Claude: it is asked for in the system prompt, after the client's
  // own, and where the model continues a prefill (no thinking, no tools, not already prefilled)
  // the answer starts as an object by construction (decision 0046).
  let prefill: string | undefined;
  if (req.responseFormat?.type === "json_object") {
    const blocks = typeof body.system === "string" ? [{ type: "text", text: body.system }] : ((body.system as Record<string, unknown>[] | undefined) ?? []);
    body.system = [...blocks, { type: "text", text: JSON_MODE_INSTRUCTION }];
    if (takesPrefill(upstreamModel) && !thinking && !req.tools?.length && messages.at(-1)?.role === "user") {
      prefill = JSON_PREFILL;
      messages.push({ role: "assistant", content: [{ type: "text", text: prefill }] });
    }
  }
  if (req.temperature !== undefined && !dropped.includes("temperature")) body.temperature = req.temperature;
  if (req.topP !== undefined && !dropped.includes("top_p")) body.top_p = req.topP;
  if (req.topK !== undefined && !dropped.includes("top_k")) body.top_k = req.topK;
  if (req.stop?.length) body.stop_sequences = req.stop;
  if (req.user) body.metadata = { user_id: req.user };
  const tools: Record<string, unknown>[] = [];
  if (req.tools?.length && req.toolChoice?.type !== "none")
    for (const t of req.tools) {
      const f = t.custom ? customToolAsFunction(t) : { description: t.description, parameters: t.parameters };
      tools.push({
        name: t.name,
        ...(f.description ? { description: f.description } : {}),
        input_schema: f.parameters ?? { type: "object", properties: {} },
        ...anthropicCacheControl(t.cacheControl),
      });
    }
  if (req.hostedTools?.some((t) => t.type === "web_search")) tools.push({ type: "web_search_20250305", name: "web_search" });
  if (tools.length) body.tools = tools;
  if (req.toolChoice && req.tools?.length) {
    const tc = req.toolChoice;
    const choice: Record<string, unknown> =
      tc.type === "required" ? { type: "any" } : tc.type === "tool" ? { type: "tool", name: tc.name } : { type: tc.type };
    if (req.parallelToolCalls === false && tc.type !== "none") choice.disable_parallel_tool_use = true;
    if (tc.type !== "none") body.tool_choice = choice;
  } else if (req.parallelToolCalls === false && req.tools?.length) body.tool_choice = { type: "auto", disable_parallel_tool_use: true };
  if (req.responseFormat?.type === "json_schema") body.output_config = { format: { type: "json_schema", schema: req.responseFormat.schema } };
  if (req.stream) body.stream = true;
  return { ok: true, value: body, dropped: dropped.length ? dropped : undefined, prefill };
}
