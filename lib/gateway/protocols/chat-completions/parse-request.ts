/** Chat Completions wire request → canonical request. */
import type {
  CanonicalMessage,
  CanonicalRequest,
  CanonicalTool,
  ContentPart,
  DocumentPart,
  ImagePart,
  ResponseFormat,
  TextPart,
  ToolChoice,
} from "../../canonical";
import { documentFromData, imageFromUrl } from "../../canonical";
import { readCacheControl, systemBlocksOf } from "../../cache-control";
import { type ReasoningControl } from "../../canonical";
import { parseEffort } from "../../conversion/reasoning";
import { splitToolId } from "../../conversion/signatures";
import type { Result } from "../../../result";
import type { ApiError } from "../../errors";
import { bad, toStringList, zodError } from "../validate";
import { ccRequest, type CcMessage } from "./schema";

export function parseChatRequest(body: unknown): Result<CanonicalRequest, ApiError> {
  const parsed = ccRequest.safeParse(body);
  if (!parsed.success) return { ok: false, error: zodError(parsed.error) };
  const b = parsed.data;
  if (b.stream_options != null && !b.stream)
    return { ok: false, error: bad("stream_options", "only allowed when stream is true") };

  const system: string[] = [];
  const systemParts: TextPart[][] = [];
  const messages: CanonicalMessage[] = [];
  const unconvertible: string[] = [];
  for (let i = 0; i < b.messages.length; i++) {
    const m = b.messages[i]!;
    const where = `messages[${i}]`;
    switch (m.role) {
      case "system":
      case "developer": {
        const r = contentParts(m.content, where, false);
        if (!r.ok) return r;
        system.push(r.value.map((p) => (p as TextPart).text).join(""));
        systemParts.push(r.value as TextPart[]);
        break;
      }
      case "user": {
        const r = contentParts(m.content, where, true, unconvertible);
        if (!r.ok) return r;
        push(messages, "user", r.value);
        break;
      }
      case "assistant": {
        const r = contentParts(m.content ?? null, where, false);
        if (!r.ok) return r;
        const parts: ContentPart[] = r.value.filter((p) => p.type !== "text" || p.text !== "");
        for (const tc of m.tool_calls ?? [])
          parts.push({ type: "tool_call", id: tc.id, name: tc.function.name, arguments: tc.function.arguments, signature: splitToolId(tc.id).signature });
        push(messages, "assistant", parts);
        break;
      }
      case "tool": {
        if (!m.tool_call_id) return { ok: false, error: bad(`${where}.tool_call_id`, "required for role tool") };
        const r = contentParts(m.content, where, true);
        if (!r.ok) return r;
        push(messages, "user", [{ type: "tool_result", callId: m.tool_call_id, content: r.value }]);
        break;
      }
      case "function":
        return { ok: false, error: bad(`${where}.role`, "the deprecated function role is not supported; use tool") };
    }
  }

  let toolChoice: ToolChoice | undefined;
  if (typeof b.tool_choice === "string") toolChoice = { type: b.tool_choice };
  else if (b.tool_choice) {
    const c = b.tool_choice as { type: string; function?: { name: string }; custom?: { name: string } };
    toolChoice = { type: "tool", name: (c.type === "custom" ? c.custom?.name : c.function?.name) ?? "" };
  }

  let reasoning: ReasoningControl | undefined;
  if (b.reasoning_effort != null) {
    const e = parseEffort(b.reasoning_effort);
    if (!e) return { ok: false, error: bad("reasoning_effort", `unknown effort "${b.reasoning_effort}"`) };
    reasoning = e === "none" ? { enabled: false } : { enabled: true, effort: e, show: true };
  }

  let responseFormat: ResponseFormat | undefined;
  const rf = b.response_format;
  if (rf?.type === "json_object") responseFormat = { type: "json_object" };
  else if (rf?.type === "json_schema" && "json_schema" in rf) {
    const js = rf.json_schema as { name: string; schema?: Record<string, unknown>; strict?: boolean | null };
    responseFormat = { type: "json_schema", name: js.name, schema: js.schema ?? {}, strict: js.strict ?? undefined };
  }

  const tools: CanonicalTool[] = [];
  for (let i = 0; i < (b.tools ?? []).length; i++) {
    const t = b.tools![i]!;
    const cc = readCacheControl((t as { cache_control?: unknown }).cache_control, `tools[${i}]`);
    if (!cc.ok) return cc;
    const cache = cc.value ? { cacheControl: cc.value } : {};
    if (t.type === "custom") tools.push({ name: t.custom.name, description: t.custom.description, custom: { format: t.custom.format }, ...cache });
    else tools.push({ name: t.function.name, description: t.function.description, parameters: t.function.parameters, ...cache });
  }
  const cacheHints = b as { prompt_cache_key?: unknown; prompt_cache_retention?: unknown };

  const req: CanonicalRequest = {
    model: b.model,
    system: system.length ? system.join("\n\n") : undefined,
    systemBlocks: systemBlocksOf(systemParts),
    promptCacheKey: typeof cacheHints.prompt_cache_key === "string" ? cacheHints.prompt_cache_key : undefined,
    promptCacheRetention: typeof cacheHints.prompt_cache_retention === "string" ? cacheHints.prompt_cache_retention : undefined,
    messages,
    stream: b.stream === true,
    includeUsage: b.stream_options?.include_usage === true,
    maxOutputTokens: b.max_completion_tokens ?? b.max_tokens ?? undefined,
    temperature: b.temperature ?? undefined,
    topP: b.top_p ?? undefined,
    stop: toStringList(b.stop),
    n: b.n ?? undefined,
    seed: b.seed ?? undefined,
    presencePenalty: b.presence_penalty ?? undefined,
    frequencyPenalty: b.frequency_penalty ?? undefined,
    user: b.user,
    tools: b.tools ? tools : undefined,
    reasoning,
    verbosity: b.verbosity ?? undefined,
    serviceTier: b.service_tier ?? undefined,
    hostedTools: b.web_search_options ? [{ type: "web_search", label: "web_search_options" }] : undefined,
    toolChoice,
    parallelToolCalls: b.parallel_tool_calls,
    logprobs: b.logprobs === true ? true : undefined,
    topLogprobs: b.top_logprobs ?? undefined,
    responseFormat,
    // Several choices: an OpenAI upstream (passthrough) makes them; a converted route refuses.
    unconvertible: b.n != null && b.n > 1 ? ["n", ...unconvertible] : unconvertible.length ? unconvertible : undefined,
  };
  return { ok: true, value: req };
}

/** Consecutive same-role turns merge (AM and GC want alternation; CC tool messages come in runs). */
function push(messages: CanonicalMessage[], role: "user" | "assistant", parts: ContentPart[]) {
  const last = messages[messages.length - 1];
  if (last && last.role === role) last.parts.push(...parts);
  else messages.push({ role, parts });
}

function contentParts(
  content: CcMessage["content"],
  where: string,
  allowImages: boolean,
  /** User turns only: documents are taken, and what only OpenAI can serve is listed here. */
  unconvertible?: string[],
): Result<Array<TextPart | ImagePart | DocumentPart>, ApiError> {
  if (content == null) return { ok: true, value: [] };
  if (typeof content === "string") return { ok: true, value: [{ type: "text", text: content }] };
  const out: Array<TextPart | ImagePart | DocumentPart> = [];
  for (let j = 0; j < content.length; j++) {
    const p = content[j] as { type: string; text?: string; image_url?: { url: string }; file?: { file_data?: unknown; file_id?: unknown; filename?: unknown }; cache_control?: unknown };
    const cc = readCacheControl(p.cache_control, `${where}.content[${j}]`);
    if (!cc.ok) return cc;
    const cache = cc.value ? { cacheControl: cc.value } : {};
    if (p.type === "text" && typeof p.text === "string") out.push({ type: "text", text: p.text, ...cache });
    else if (p.type === "image_url" && allowImages && p.image_url)
      out.push({ type: "image", source: imageFromUrl(p.image_url.url), path: `${where}.content[${j}]`, ...cache });
    else if (p.type === "file" && unconvertible && p.file) {
      // A file_id the files step left (it inlines the caller's own: decision 0074) cannot be converted.
      if (typeof p.file.file_data !== "string") {
        unconvertible.push(`${where}.content[${j}].file.file_id`);
        continue;
      }
      const filename = typeof p.file.filename === "string" ? { filename: p.file.filename } : {};
      out.push({ type: "document", source: documentFromData(p.file.file_data), ...filename, path: `${where}.content[${j}]`, ...cache });
    } else
      return {
        ok: false,
        error: bad(`${where}.content[${j}].type`, `content part type "${p.type}" is not supported here`),
      };
  }
  return { ok: true, value: out };
}
