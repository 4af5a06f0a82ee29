/** Responses wire request → canonical request. Stateful features are refused, not faked. */
import type { CanonicalMessage, CanonicalRequest, CanonicalTool, ContentPart, DocumentPart, HostedTool, ImagePart, ReasoningControl, ResponseFormat, TextPart, ToolChoice } from "../../canonical";
import { documentFromData, imageFromUrl } from "../../canonical";
import { readCacheControl, systemBlocksOf } from "../../cache-control";
import { parseEffort } from "../../conversion/reasoning";
import { reasoningFromCarrier, splitToolId } from "../../conversion/signatures";
import { hostedFromOpenAIType, namespacedName } from "../tools";
import type { Result } from "../../../result";
import type { ApiError } from "../../errors";
import { bad, zodError } from "../validate";
import { rsRequest } from "./schema";

export function parseResponsesRequest(body: unknown): Result<CanonicalRequest, ApiError> {
  const parsed = rsRequest.safeParse(body);
  if (!parsed.success) return { ok: false, error: zodError(parsed.error) };
  const b = parsed.data;
  // docs/design.md, "Stateful Responses": nothing is stored, so chaining cannot be honoured.
  if (b.previous_response_id != null)
    return { ok: false, error: bad("previous_response_id", "stored responses are not supported; send the whole conversation in input") };
  if (b.background) return { ok: false, error: bad("background", "background responses are not supported") };
  if (b.conversation != null) return { ok: false, error: bad("conversation", "conversations are not supported") };

  const system: string[] = [];
  const systemParts: TextPart[][] = [];
  if (b.instructions) (system.push(b.instructions), systemParts.push([{ type: "text", text: b.instructions }]));
  const messages: CanonicalMessage[] = [];
  const unconvertible: string[] = [];
  const tools: CanonicalTool[] = [];
  const hostedTools: HostedTool[] = [];
  const addTools = (list: unknown[], where: string): Result<null, ApiError> => {
    for (let i = 0; i < list.length; i++) {
      const r = tool(list[i] as Record<string, unknown>, `${where}[${i}]`, tools, hostedTools, unconvertible);
      if (!r.ok) return r;
    }
    return { ok: true, value: null };
  };
  const items = typeof b.input === "string" ? [{ role: "user" as const, content: b.input }] : b.input;
  for (let i = 0; i < items.length; i++) {
    const it = items[i]! as (typeof items)[number] & { type?: string; call_id?: string; name?: string; arguments?: string; output?: unknown; input?: string; namespace?: string };
    const where = `input[${i}]`;
    const type = it.type ?? "message";
    if (type === "message") {
      if (!it.role) return { ok: false, error: bad(`${where}.role`, "required") };
      const r = parts(it.content, `${where}.content`, it.role === "user", it.role === "user" ? unconvertible : undefined);
      if (!r.ok) return r;
      if (it.role === "system" || it.role === "developer")
        (system.push(r.value.map((p) => (p as TextPart).text).join("")), systemParts.push(r.value as TextPart[]));
      else push(messages, it.role, r.value.filter((p) => p.type !== "text" || p.text !== ""));
    } else if (type === "function_call") {
      if (!it.call_id || !it.name) return { ok: false, error: bad(where, "function_call needs call_id and name") };
      const name = it.namespace ? namespacedName(it.namespace, it.name) : it.name;
      push(messages, "assistant", [{ type: "tool_call", id: it.call_id, name, arguments: it.arguments ?? "", signature: splitToolId(it.call_id).signature }]);
    } else if (type === "custom_tool_call") {
      // Other upstreams know custom tools as functions taking one `input` string.
      if (!it.call_id || !it.name) return { ok: false, error: bad(where, "custom_tool_call needs call_id and name") };
      push(messages, "assistant", [{ type: "tool_call", id: it.call_id, name: it.name, arguments: JSON.stringify({ input: it.input ?? "" }), signature: splitToolId(it.call_id).signature }]);
    } else if (type === "custom_tool_call_output" || type === "function_call_output") {
      if (!it.call_id) return { ok: false, error: bad(`${where}.call_id`, "required") };
      // The output may hold what the tool read: images (input_image) and files (input_file).
      const r = parts(it.output as never, `${where}.output`, true, unconvertible);
      if (!r.ok) return r;
      push(messages, "user", [{ type: "tool_result", callId: it.call_id, content: r.value }]);
    } else if (type === "reasoning") {
      // What the issuing vendor needs back rides in encrypted_content (conversion/signatures.ts).
      const r = it as { summary?: Array<{ text?: string }>; encrypted_content?: string | null };
      const summary = (r.summary ?? []).map((x) => x.text ?? "").join("\n");
      push(messages, "assistant", [r.encrypted_content ? reasoningFromCarrier(r.encrypted_content, summary) : { type: "reasoning", origin: "other", text: summary }]);
    } else if (type === "image_generation_call" && typeof (it as { result?: unknown }).result === "string") {
      // An image the model drew earlier (a chained turn): the model sees its own picture again.
      const g = it as { result: string; output_format?: string };
      push(messages, "assistant", [{ type: "image", source: { kind: "base64", mediaType: `image/${g.output_format ?? "png"}`, data: g.result } }]);
    } else if (type === "additional_tools") {
      // Tools announced inside the input (Codex does this for its default model).
      const r = addTools(((it as { tools?: unknown[] }).tools ?? []) as unknown[], `${where}.tools`);
      if (!r.ok) return r;
    } else if (type.endsWith("_call") && hostedFromOpenAIType(type.slice(0, -"_call".length)) !== null) {
      // The record of a hosted tool's run (web_search_call, …): its outcome is in the text after it.
      continue;
    } else {
      // Kept for a Responses upstream (passthrough); any converted route refuses it, naming the item.
      unconvertible.push(`${where}.type`);
    }
  }

  const declared = addTools(b.tools ?? [], "tools");
  if (!declared.ok) return declared;

  let toolChoice: ToolChoice | undefined;
  const tc = b.tool_choice as { type: string; name?: unknown; mode?: unknown } | string | undefined;
  if (typeof tc === "string") toolChoice = { type: tc as "auto" | "none" | "required" };
  else if (tc && (tc.type === "function" || tc.type === "custom") && typeof tc.name === "string") toolChoice = { type: "tool", name: tc.name };
  else if (tc && tc.type === "allowed_tools") toolChoice = { type: tc.mode === "required" ? "required" : "auto" };
  else if (tc && hostedFromOpenAIType(tc.type) !== null) toolChoice = { type: "auto" };
  else if (tc) return { ok: false, error: bad("tool_choice", `tool_choice type "${tc.type}" is not supported`) };

  let reasoning: ReasoningControl | undefined;
  if (b.reasoning) {
    const e = b.reasoning.effort == null ? undefined : parseEffort(b.reasoning.effort);
    if (b.reasoning.effort != null && !e) return { ok: false, error: bad("reasoning.effort", `unknown effort "${b.reasoning.effort}"`) };
    const show = b.reasoning.summary != null && b.reasoning.summary !== "none";
    reasoning = e === "none" ? { enabled: false } : e || show ? { enabled: true, effort: e, show } : undefined;
  }

  let responseFormat: ResponseFormat | undefined;
  const f = b.text?.format;
  if (f?.type === "json_object") responseFormat = { type: "json_object" };
  else if (f?.type === "json_schema")
    responseFormat = { type: "json_schema", name: f.name, schema: f.schema ?? {}, strict: f.strict ?? undefined };
  else if (f && f.type !== "text") return { ok: false, error: bad("text.format.type", `"${f.type}" is not supported`) };

  // Token log-probabilities are data only an OpenAI Responses upstream (passthrough) gives back.
  const lp = b as { top_logprobs?: unknown; include?: unknown };
  if (typeof lp.top_logprobs === "number" && lp.top_logprobs > 0) unconvertible.push("top_logprobs");
  if (Array.isArray(lp.include) && lp.include.includes("message.output_text.logprobs")) unconvertible.push("include (message.output_text.logprobs)");
  const cacheHints = b as { prompt_cache_key?: unknown; prompt_cache_retention?: unknown };
  return {
    ok: true,
    value: {
      model: b.model,
      system: system.length ? system.join("\n\n") : undefined,
      systemBlocks: systemBlocksOf(systemParts),
      promptCacheKey: typeof cacheHints.prompt_cache_key === "string" ? cacheHints.prompt_cache_key : undefined,
      promptCacheRetention: typeof cacheHints.prompt_cache_retention === "string" ? cacheHints.prompt_cache_retention : undefined,
      messages,
      stream: b.stream === true,
      maxOutputTokens: b.max_output_tokens ?? undefined,
      temperature: b.temperature ?? undefined,
      topP: b.top_p ?? undefined,
      tools: tools.length ? tools : undefined,
      toolChoice,
      parallelToolCalls: b.parallel_tool_calls ?? undefined,
      responseFormat,
      user: b.user,
      unconvertible: unconvertible.length ? unconvertible : undefined,
      reasoning,
      hostedTools: hostedTools.length ? hostedTools : undefined,
      verbosity: b.text?.verbosity ?? undefined,
      serviceTier: b.service_tier ?? undefined,
    },
  };
}

/**
 * One Responses tool into the canonical lists: functions; custom tools (free text); namespace
 * members flattened to `<namespace>__<member>`; hosted tools by type (mapped or dropped as hints).
 */
function tool(t: Record<string, unknown>, where: string, tools: CanonicalTool[], hosted: HostedTool[], unconvertible: string[]): Result<null, ApiError> {
  const type = String(t.type ?? "");
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const cc = readCacheControl(t.cache_control, where);
  if (!cc.ok) return cc;
  const cache = cc.value ? { cacheControl: cc.value } : {};
  if (type === "function") {
    if (!str(t.name)) return { ok: false, error: bad(`${where}.name`, "required") };
    tools.push({ name: t.name as string, description: str(t.description), parameters: (t.parameters as Record<string, unknown> | null) ?? undefined, ...cache });
  } else if (type === "custom") {
    if (!str(t.name)) return { ok: false, error: bad(`${where}.name`, "required") };
    tools.push({ name: t.name as string, description: str(t.description), custom: { format: t.format }, ...cache });
  } else if (type === "namespace") {
    const ns = str(t.name);
    if (!ns || !Array.isArray(t.tools)) return { ok: false, error: bad(where, "a namespace needs a name and tools") };
    const members: CanonicalTool[] = [];
    for (let i = 0; i < t.tools.length; i++) {
      const r = tool(t.tools[i] as Record<string, unknown>, `${where}.tools[${i}]`, members, hosted, unconvertible);
      if (!r.ok) return r;
    }
    const prefix = str(t.description);
    for (const m of members)
      tools.push({ ...m, name: namespacedName(ns, m.name), description: prefix ? `${prefix}\n\n${m.description ?? ""}`.trim() : m.description, namespace: { name: ns, member: m.name } });
  } else {
    const h = hostedFromOpenAIType(type);
    // Unknown to us: a Responses upstream may know it (passthrough); converted routes refuse it.
    if (h === null) unconvertible.push(`${where}.type`);
    else hosted.push({ type: h, label: type });
  }
  return { ok: true, value: null };
}

function push(messages: CanonicalMessage[], role: "user" | "assistant", p: ContentPart[]) {
  const last = messages[messages.length - 1];
  if (last && last.role === role) last.parts.push(...p);
  else messages.push({ role, parts: p });
}

/**
 * `where` names the content itself (`input[2].content`, `input[3].output`). `unconvertible` is
 * given where files are taken (user messages, tool outputs); what only OpenAI can serve is listed there.
 */
function parts(content: unknown, where: string, allowImages: boolean, unconvertible?: string[]): Result<Array<TextPart | ImagePart | DocumentPart>, ApiError> {
  if (content == null) return { ok: true, value: [] };
  if (typeof content === "string") return { ok: true, value: [{ type: "text", text: content }] };
  if (!Array.isArray(content)) return { ok: false, error: bad(where, "must be a string or an array") };
  const out: Array<TextPart | ImagePart | DocumentPart> = [];
  for (let j = 0; j < content.length; j++) {
    const p = content[j] as { type?: string; text?: string; image_url?: string; refusal?: string; cache_control?: unknown; file_data?: unknown; file_url?: unknown; filename?: unknown };
    const cc = readCacheControl(p.cache_control, `${where}[${j}]`);
    if (!cc.ok) return cc;
    const cache = cc.value ? { cacheControl: cc.value } : {};
    if ((p.type === "input_text" || p.type === "output_text" || p.type === "text") && typeof p.text === "string")
      out.push({ type: "text", text: p.text, ...cache });
    else if (p.type === "refusal" && typeof p.refusal === "string") out.push({ type: "text", text: p.refusal });
    else if (p.type === "input_image" && allowImages && typeof p.image_url === "string")
      out.push({ type: "image", source: imageFromUrl(p.image_url), path: `${where}[${j}]`, ...cache });
    else if (p.type === "input_file" && unconvertible) {
      const filename = typeof p.filename === "string" ? { filename: p.filename } : {};
      const path = `${where}[${j}]`;
      if (typeof p.file_data === "string") out.push({ type: "document", source: documentFromData(p.file_data), ...filename, path, ...cache });
      else if (typeof p.file_url === "string") out.push({ type: "document", source: { kind: "url", url: p.file_url }, ...filename, path, ...cache });
      // A file_id the files step left (it inlines the caller's own: decision 0074) cannot be converted.
      else unconvertible.push(`${path}.file_id`);
    } else return { ok: false, error: bad(`${where}[${j}].type`, `content type "${p.type}" is not supported here`) };
  }
  return { ok: true, value: out };
}
