/** Messages wire request → canonical request. */
import type { CanonicalMessage, CanonicalRequest, ContentPart, ImagePart, TextPart, ToolChoice } from "../../canonical";
import type { Result } from "../types";
import { bad, zodError } from "../validate";
import { amRequest } from "./schema";

type Block = { type: string; [k: string]: unknown };

export function parseMessagesRequest(body: unknown): Result<CanonicalRequest> {
  const parsed = amRequest.safeParse(body);
  if (!parsed.success) return { ok: false, error: zodError(parsed.error) };
  const b = parsed.data;
  const unconvertible: string[] = [];
  if (b.thinking && b.thinking.type !== "disabled") unconvertible.push("thinking");
  if (b.output_config) unconvertible.push("output_config");

  const messages: CanonicalMessage[] = [];
  for (let i = 0; i < b.messages.length; i++) {
    const m = b.messages[i]!;
    const where = `messages[${i}]`;
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Block[]);
    const parts: ContentPart[] = [];
    for (let j = 0; j < blocks.length; j++) {
      const r = block(blocks[j]!, `${where}.content[${j}]`, m.role);
      if (!r.ok) return r;
      if (r.value) parts.push(r.value);
    }
    const last = messages[messages.length - 1];
    if (last && last.role === m.role) last.parts.push(...parts);
    else messages.push({ role: m.role, parts });
  }

  const tools = [];
  for (let i = 0; i < (b.tools ?? []).length; i++) {
    const t = b.tools![i]!;
    if (t.type && t.type !== "custom")
      return { ok: false, error: bad(`tools[${i}].type`, `server tool "${t.type}" is not supported`) };
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

  const system = typeof b.system === "string" ? b.system : b.system?.map((s) => s.text).join("\n\n");
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
      unconvertible: unconvertible.length ? unconvertible : undefined,
    },
  };
}

function block(bl: Block, where: string, role: "user" | "assistant"): Result<ContentPart | null> {
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
      return { ok: true, value: { type: "tool_call", id: bl.id, name: bl.name, arguments: JSON.stringify(bl.input ?? {}) } };
    case "tool_result": {
      if (role !== "user") break;
      if (typeof bl.tool_use_id !== "string") return { ok: false, error: bad(`${where}.tool_use_id`, "required") };
      const content: Array<TextPart | ImagePart> = [];
      if (typeof bl.content === "string") content.push({ type: "text", text: bl.content });
      else if (Array.isArray(bl.content))
        for (let k = 0; k < bl.content.length; k++) {
          const c = bl.content[k] as Block;
          if (c.type === "text" && typeof c.text === "string") content.push({ type: "text", text: c.text });
          else if (c.type === "image") {
            const img = image(c, `${where}.content[${k}]`);
            if (!img.ok) return img;
            content.push(img.value);
          } else return { ok: false, error: bad(`${where}.content[${k}].type`, `"${c.type}" is not supported in tool results`) };
        }
      return { ok: true, value: { type: "tool_result", callId: bl.tool_use_id, content, isError: bl.is_error === true || undefined } };
    }
    case "thinking":
    case "redacted_thinking":
      // Signed reasoning cannot be replayed into another vendor; the passthrough keeps it.
      return { ok: true, value: null };
  }
  return { ok: false, error: bad(`${where}.type`, `block type "${bl.type}" is not supported in ${role} turns`) };
}

function image(bl: Block, where: string): Result<ImagePart> {
  const src = bl.source as { type?: string; media_type?: string; data?: string; url?: string } | undefined;
  if (src?.type === "base64" && src.media_type && typeof src.data === "string")
    return { ok: true, value: { type: "image", source: { kind: "base64", mediaType: src.media_type, data: src.data } } };
  if (src?.type === "url" && typeof src.url === "string")
    return { ok: true, value: { type: "image", source: { kind: "url", url: src.url } } };
  return { ok: false, error: bad(`${where}.source`, "only base64 and url image sources are supported") };
}
