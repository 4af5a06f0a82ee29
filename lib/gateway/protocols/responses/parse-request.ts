/** Responses wire request → canonical request. Stateful features are refused, not faked. */
import type { CanonicalMessage, CanonicalRequest, ContentPart, ImagePart, ResponseFormat, TextPart, ToolChoice } from "../../canonical";
import { imageFromUrl } from "../../canonical";
import { readCacheControl, systemBlocksOf } from "../../cache-control";
import type { Result } from "../types";
import { bad, zodError } from "../validate";
import { rsRequest } from "./schema";

export function parseResponsesRequest(body: unknown): Result<CanonicalRequest> {
  const parsed = rsRequest.safeParse(body);
  if (!parsed.success) return { ok: false, error: zodError(parsed.error) };
  const b = parsed.data;
  // DESIGN.md, "Stateful Responses": nothing is stored, so chaining cannot be honoured.
  if (b.previous_response_id != null)
    return { ok: false, error: bad("previous_response_id", "stored responses are not supported; send the whole conversation in input") };
  if (b.background) return { ok: false, error: bad("background", "background responses are not supported") };
  if (b.conversation != null) return { ok: false, error: bad("conversation", "conversations are not supported") };

  const system: string[] = [];
  const systemParts: TextPart[][] = [];
  if (b.instructions) (system.push(b.instructions), systemParts.push([{ type: "text", text: b.instructions }]));
  const messages: CanonicalMessage[] = [];
  const unconvertible: string[] = [];
  const items = typeof b.input === "string" ? [{ role: "user" as const, content: b.input }] : b.input;
  for (let i = 0; i < items.length; i++) {
    const it = items[i]! as (typeof items)[number] & { type?: string; call_id?: string; name?: string; arguments?: string; output?: unknown };
    const where = `input[${i}]`;
    const type = it.type ?? "message";
    if (type === "message") {
      if (!it.role) return { ok: false, error: bad(`${where}.role`, "required") };
      const r = parts(it.content, where, it.role === "user");
      if (!r.ok) return r;
      if (it.role === "system" || it.role === "developer")
        (system.push(r.value.map((p) => (p as TextPart).text).join("")), systemParts.push(r.value as TextPart[]));
      else push(messages, it.role, r.value.filter((p) => p.type !== "text" || p.text !== ""));
    } else if (type === "function_call") {
      if (!it.call_id || !it.name) return { ok: false, error: bad(where, "function_call needs call_id and name") };
      push(messages, "assistant", [{ type: "tool_call", id: it.call_id, name: it.name, arguments: it.arguments ?? "" }]);
    } else if (type === "function_call_output") {
      if (!it.call_id) return { ok: false, error: bad(`${where}.call_id`, "required") };
      const r = parts(it.output as never, where, true);
      if (!r.ok) return r;
      push(messages, "user", [{ type: "tool_result", callId: it.call_id, content: r.value }]);
    } else if (type === "reasoning") {
      // Reasoning items cannot be replayed into another vendor (conversion.md, "Pitfalls").
      continue;
    } else {
      // Kept for a Responses upstream (passthrough); any converted route refuses it, naming the item.
      unconvertible.push(`${where}.type`);
    }
  }

  const tools = [];
  for (let i = 0; i < (b.tools ?? []).length; i++) {
    const t = b.tools![i]!;
    if (t.type !== "function" || !t.name)
      return { ok: false, error: bad(`tools[${i}].type`, `only function tools are supported, not "${t.type}"`) };
    const cc = readCacheControl((t as { cache_control?: unknown }).cache_control, `tools[${i}]`);
    if (!cc.ok) return cc;
    tools.push({ name: t.name, description: t.description ?? undefined, parameters: t.parameters ?? undefined, ...(cc.value ? { cacheControl: cc.value } : {}) });
  }

  let toolChoice: ToolChoice | undefined;
  const tc = b.tool_choice;
  if (typeof tc === "string") toolChoice = { type: tc };
  else if (tc && tc.type === "function" && typeof (tc as { name?: unknown }).name === "string")
    toolChoice = { type: "tool", name: (tc as { name: string }).name };
  else if (tc) return { ok: false, error: bad("tool_choice", `tool_choice type "${tc.type}" is not supported`) };

  let responseFormat: ResponseFormat | undefined;
  const f = b.text?.format;
  if (f?.type === "json_object") responseFormat = { type: "json_object" };
  else if (f?.type === "json_schema")
    responseFormat = { type: "json_schema", name: f.name, schema: f.schema ?? {}, strict: f.strict ?? undefined };
  else if (f && f.type !== "text") return { ok: false, error: bad("text.format.type", `"${f.type}" is not supported`) };

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
    },
  };
}

function push(messages: CanonicalMessage[], role: "user" | "assistant", p: ContentPart[]) {
  const last = messages[messages.length - 1];
  if (last && last.role === role) last.parts.push(...p);
  else messages.push({ role, parts: p });
}

function parts(content: unknown, where: string, allowImages: boolean): Result<Array<TextPart | ImagePart>> {
  if (content == null) return { ok: true, value: [] };
  if (typeof content === "string") return { ok: true, value: [{ type: "text", text: content }] };
  if (!Array.isArray(content)) return { ok: false, error: bad(`${where}.content`, "must be a string or an array") };
  const out: Array<TextPart | ImagePart> = [];
  for (let j = 0; j < content.length; j++) {
    const p = content[j] as { type?: string; text?: string; image_url?: string; refusal?: string; cache_control?: unknown };
    const cc = readCacheControl(p.cache_control, `${where}.content[${j}]`);
    if (!cc.ok) return cc;
    const cache = cc.value ? { cacheControl: cc.value } : {};
    if ((p.type === "input_text" || p.type === "output_text" || p.type === "text") && typeof p.text === "string")
      out.push({ type: "text", text: p.text, ...cache });
    else if (p.type === "refusal" && typeof p.refusal === "string") out.push({ type: "text", text: p.refusal });
    else if (p.type === "input_image" && allowImages && typeof p.image_url === "string")
      out.push({ type: "image", source: imageFromUrl(p.image_url), ...cache });
    else return { ok: false, error: bad(`${where}.content[${j}].type`, `content type "${p.type}" is not supported here`) };
  }
  return { ok: true, value: out };
}
