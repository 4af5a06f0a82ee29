/** Messages wire request → canonical request. */
import type { CanonicalMessage, CanonicalRequest, ContentPart, DocumentPart, HostedTool, ImagePart, ReasoningControl, ResponseFormat, ToolChoice, ToolResultContent } from "../../canonical";
import { parseEffort } from "../../conversion/reasoning";
import { splitToolId } from "../../conversion/signatures";
import { hostedFromAnthropicType } from "../tools";
import type { Result } from "../../../result";
import type { ApiError } from "../../errors";
import { bad, zodError } from "../validate";

/** Our own marker in signatures we render for another vendor's reasoning (never Anthropic's). */
export const FOREIGN_SIGNATURE_PREFIX = "gateway:";
import { amRequest } from "./schema";

type Block = { type: string; [k: string]: unknown };

export function parseMessagesRequest(body: unknown): Result<CanonicalRequest, ApiError> {
  const parsed = amRequest.safeParse(body);
  if (!parsed.success) return { ok: false, error: zodError(parsed.error) };
  const b = parsed.data;
  const unconvertible: string[] = [];
  // Reasoning controls map (docs/conversion-policy.md, "Reasoning").
  let reasoning: ReasoningControl | undefined;
  const th = b.thinking as { type: string; budget_tokens?: unknown; display?: unknown } | undefined;
  const show = th?.display !== "omitted";
  if (th?.type === "enabled")
    reasoning = { enabled: true, budgetTokens: typeof th.budget_tokens === "number" ? th.budget_tokens : undefined, show };
  else if (th?.type === "adaptive") reasoning = { enabled: true, adaptive: true, show };
  else if (th?.type === "disabled") reasoning = { enabled: false };
  else if (th) return { ok: false, error: bad("thinking.type", `unknown thinking type "${th.type}"`) };
  const oc = b.output_config as { effort?: unknown; format?: { type?: string; schema?: Record<string, unknown> } } | undefined;
  if (oc?.effort !== undefined) {
    const e = parseEffort(oc.effort);
    if (!e || e === "none") return { ok: false, error: bad("output_config.effort", `unknown effort "${String(oc.effort)}"`) };
    reasoning = reasoning ? (reasoning.enabled ? { ...reasoning, effort: e } : reasoning) : { enabled: true, effort: e, show: false };
  }
  let responseFormat: ResponseFormat | undefined;
  if (oc?.format) {
    if (oc.format.type !== "json_schema" || !oc.format.schema) unconvertible.push("output_config.format");
    else responseFormat = { type: "json_schema", name: "response", schema: oc.format.schema };
  }

  const messages: CanonicalMessage[] = [];
  const extraSystem: string[] = [];
  for (let i = 0; i < b.messages.length; i++) {
    const raw = b.messages[i]!;
    const where = `messages[${i}]`;
    if (raw.role === "system") {
      // Converted, a system turn joins the system prompt (it loses its position, conversion.md).
      const blocks = typeof raw.content === "string" ? [{ type: "text", text: raw.content }] : (raw.content as Block[]);
      extraSystem.push(blocks.map((bl) => (bl.type === "text" && typeof bl.text === "string" ? bl.text : "")).join(""));
      continue;
    }
    const m = raw as typeof raw & { role: "user" | "assistant" };
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Block[]);
    const parts: ContentPart[] = [];
    for (let j = 0; j < blocks.length; j++) {
      const r = block(blocks[j]!, `${where}.content[${j}]`, m.role, unconvertible);
      if (!r.ok) return r;
      if (r.value === UNCONVERTIBLE) unconvertible.push(`${where}.content[${j}]`);
      else if (r.value) parts.push(r.value);
    }
    const last = messages[messages.length - 1];
    if (last && last.role === m.role) last.parts.push(...parts);
    else messages.push({ role: m.role, parts });
  }

  const tools = [];
  const hostedTools: HostedTool[] = [];
  for (let i = 0; i < (b.tools ?? []).length; i++) {
    const t = b.tools![i]!;
    if (t.type && t.type !== "custom") {
      // Server tools pass through as sent; converted, they map where the target has one.
      const hosted = hostedFromAnthropicType(t.type);
      if (hosted) hostedTools.push({ type: hosted, label: `tools[${i}] (${t.type})` });
      else unconvertible.push(`tools[${i}] (${t.type})`);
      continue;
    }
    tools.push({ name: t.name, description: t.description, parameters: t.input_schema });
  }

  let toolChoice: ToolChoice | undefined;
  const tc = b.tool_choice;
  if (tc?.type === "auto" || tc?.type === "none") toolChoice = { type: tc.type };
  else if (tc?.type === "any") toolChoice = { type: "required" };
  else if (tc?.type === "tool") {
    if (!tc.name) return { ok: false, error: bad("tool_choice.name", "required when type is tool") };
    toolChoice = { type: "tool", name: tc.name };
  }

  const base = typeof b.system === "string" ? b.system : b.system?.map((s) => s.text).join("\n\n");
  // Breakpoints stay in the body on the passthrough; converted, they are a hint the target caches without.
  const marked = (x: unknown) => typeof x === "object" && x !== null && (x as { cache_control?: unknown }).cache_control != null;
  const cacheBreakpoints =
    (Array.isArray(b.system) && b.system.some(marked)) ||
    (Array.isArray(b.tools) && b.tools.some(marked)) ||
    b.messages.some((m) => Array.isArray(m.content) && (m.content as unknown[]).some(marked));
  const system = [base ?? "", ...extraSystem].filter((t) => t !== "").join("\n\n");
  return {
    ok: true,
    value: {
      model: b.model,
      system: system || undefined,
      messages,
      stream: b.stream === true,
      maxOutputTokens: b.max_tokens,
      temperature: b.temperature,
      topP: b.top_p,
      topK: b.top_k,
      stop: b.stop_sequences,
      tools: tools.length ? tools : undefined,
      toolChoice,
      parallelToolCalls: tc?.disable_parallel_tool_use ? false : undefined,
      user: b.metadata?.user_id ?? undefined,
      reasoning,
      responseFormat,
      hostedTools: hostedTools.length ? hostedTools : undefined,
      unconvertible: unconvertible.length ? unconvertible : undefined,
      cacheBreakpoints: cacheBreakpoints || undefined,
    },
  };
}

/** A block only a passthrough can carry (search results, server-tool records): converted routes 400. */
const UNCONVERTIBLE = Symbol("unconvertible");

function block(bl: Block, where: string, role: "user" | "assistant", unconvertible: string[]): Result<ContentPart | null | typeof UNCONVERTIBLE, ApiError> {
  switch (bl.type) {
    case "text":
      if (typeof bl.text !== "string") return { ok: false, error: bad(`${where}.text`, "must be a string") };
      return { ok: true, value: bl.text === "" ? null : { type: "text", text: bl.text } };
    case "image": {
      const img = image(bl, where);
      return img.ok ? { ok: true, value: img.value } : img;
    }
    case "tool_use":
      if (role !== "assistant") break;
      if (typeof bl.id !== "string" || typeof bl.name !== "string")
        return { ok: false, error: bad(where, "tool_use needs id and name") };
      return { ok: true, value: { type: "tool_call", id: bl.id, name: bl.name, arguments: JSON.stringify(bl.input ?? {}), signature: splitToolId(bl.id).signature } };
    case "tool_result": {
      if (role !== "user") break;
      if (typeof bl.tool_use_id !== "string") return { ok: false, error: bad(`${where}.tool_use_id`, "required") };
      const content: ToolResultContent[] = [];
      if (typeof bl.content === "string") content.push({ type: "text", text: bl.content });
      else if (Array.isArray(bl.content))
        for (let k = 0; k < bl.content.length; k++) {
          const c = bl.content[k] as Block;
          if (c.type === "text" && typeof c.text === "string") content.push({ type: "text", text: c.text });
          else if (c.type === "image") {
            const img = image(c, `${where}.content[${k}]`);
            if (!img.ok) return img;
            content.push(img.value);
          } else if (c.type === "document") {
            const doc = document(c, `${where}.content[${k}]`);
            if (!doc.ok) return doc;
            if (doc.value === UNCONVERTIBLE) unconvertible.push(`${where}.content[${k}]`);
            else content.push(doc.value);
          } else return { ok: false, error: bad(`${where}.content[${k}].type`, `"${c.type}" is not supported in tool results`) };
        }
      return { ok: true, value: { type: "tool_result", callId: bl.tool_use_id, content, isError: bl.is_error === true || undefined } };
    }
    case "thinking": {
      if (role !== "assistant") break;
      // Signed reasoning goes back only to Anthropic; ours (another vendor's, re-shown) is marked.
      const sig = typeof bl.signature === "string" ? bl.signature : "";
      const text = typeof bl.thinking === "string" ? bl.thinking : "";
      if (!sig || sig.startsWith(FOREIGN_SIGNATURE_PREFIX)) return { ok: true, value: { type: "reasoning", origin: "other", text } };
      return { ok: true, value: { type: "reasoning", origin: "anthropic", text, signature: sig } };
    }
    case "redacted_thinking":
      if (role !== "assistant" || typeof bl.data !== "string") break;
      return { ok: true, value: { type: "reasoning", origin: "anthropic", text: "", redacted: bl.data } };
    case "document": {
      if (role !== "user") break;
      return document(bl, where);
    }
    case "search_result":
    case "container_upload":
      return { ok: true, value: UNCONVERTIBLE };
    case "server_tool_use":
    case "web_search_tool_result":
    case "web_fetch_tool_result":
    case "code_execution_tool_result":
    case "bash_code_execution_tool_result":
    case "text_editor_code_execution_tool_result":
    case "tool_search_tool_result":
    case "mcp_tool_use":
    case "mcp_tool_result":
      // The record of a tool the provider ran: its outcome is in the text that follows.
      return role === "assistant" ? { ok: true, value: null } : { ok: true, value: UNCONVERTIBLE };
  }
  return { ok: false, error: bad(`${where}.type`, `block type "${bl.type}" is not supported in ${role} turns`) };
}

/**
 * A `document` block: base64 (PDF), text and URL sources convert; a `file` (Anthropic's file
 * store), `content` blocks or citations only Anthropic can serve (the passthrough keeps them).
 */
function document(bl: Block, where: string): Result<DocumentPart | typeof UNCONVERTIBLE, ApiError> {
  const src = bl.source as { type?: string; media_type?: string; data?: unknown; url?: unknown } | undefined;
  const citations = bl.citations as { enabled?: unknown } | undefined;
  if (citations?.enabled === true) return { ok: true, value: UNCONVERTIBLE };
  const meta = { ...(typeof bl.title === "string" ? { filename: bl.title } : {}), path: where };
  if (src?.type === "base64" && typeof src.media_type === "string" && typeof src.data === "string")
    return { ok: true, value: { type: "document", source: { kind: "base64", mediaType: src.media_type, data: src.data }, ...meta } };
  if (src?.type === "text" && typeof src.data === "string") return { ok: true, value: { type: "document", source: { kind: "text", text: src.data }, ...meta } };
  if (src?.type === "url" && typeof src.url === "string") return { ok: true, value: { type: "document", source: { kind: "url", url: src.url }, ...meta } };
  if (src?.type === "file" || src?.type === "content") return { ok: true, value: UNCONVERTIBLE };
  return { ok: false, error: bad(`${where}.source`, "a document source is base64, text, url, content or file") };
}

function image(bl: Block, where: string): Result<ImagePart, ApiError> {
  const src = bl.source as { type?: string; media_type?: string; data?: string; url?: string } | undefined;
  if (src?.type === "base64" && src.media_type && typeof src.data === "string")
    return { ok: true, value: { type: "image", source: { kind: "base64", mediaType: src.media_type, data: src.data }, path: where } };
  if (src?.type === "url" && typeof src.url === "string")
    return { ok: true, value: { type: "image", source: { kind: "url", url: src.url }, path: where } };
  return { ok: false, error: bad(`${where}.source`, "only base64 and url image sources are supported") };
}
