/**
 * Google's Interactions API request (`POST /{version}/interactions`, the wire of @google/genai's
 * `interactions.create`) → a Responses API body, so an interaction runs through the stored
 * Responses machinery (history, store, background, billing) on any upstream. A field that has
 * no Responses meaning is refused with a 400 naming it; nothing is dropped silently.
 */
import { errors, type ApiError } from "../errors";
import type { Result } from "../../result";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const bad = (param: string, why: string): Result<never, ApiError> => ({ ok: false, error: errors.invalidRequest(`\`${param}\` ${why}.`, param) });

/** Fields an interaction may carry that the gateway cannot serve (agents, environments, vendor tiers…). */
const REFUSED = ["agent", "agent_config", "environment", "webhook_config", "cached_content", "continuation_token", "service_tier", "response_modalities", "safety_settings"];

/** One content block → a Responses input part (`role` decides text's part type). */
function contentPart(c: unknown, where: string, role: "user" | "assistant"): Result<Json, ApiError> {
  if (!isObject(c)) return bad(where, "must be a content object");
  const media = (kind: string) => {
    if (typeof c.data === "string" && c.data) {
      if (typeof c.mime_type !== "string") return bad(`${where}.mime_type`, `is required with inline ${kind} data`);
      return { ok: true as const, value: `data:${c.mime_type};base64,${c.data}` };
    }
    if (typeof c.uri === "string" && c.uri) return { ok: true as const, value: c.uri };
    return bad(where, `must carry \`data\` or \`uri\``);
  };
  switch (c.type) {
    case "text":
      if (typeof c.text !== "string") return bad(`${where}.text`, "must be a string");
      return { ok: true, value: { type: role === "assistant" ? "output_text" : "input_text", text: c.text } };
    case "image": {
      const url = media("image");
      return url.ok ? { ok: true, value: { type: "input_image", image_url: url.value, detail: "auto" } } : url;
    }
    case "document": {
      const url = media("document");
      if (!url.ok) return url;
      return { ok: true, value: url.value.startsWith("data:") ? { type: "input_file", file_data: url.value, filename: "document" } : { type: "input_file", file_url: url.value } };
    }
    default:
      return bad(`${where}.type`, `'${String(c.type).slice(0, 40)}' content cannot be served through the gateway (text, image and document can)`);
  }
}

function message(role: "user" | "assistant", content: unknown, where: string): Result<Json, ApiError> {
  const list = Array.isArray(content) ? content : content === undefined ? [] : [content];
  const parts: Json[] = [];
  for (let i = 0; i < list.length; i++) {
    const p = contentPart(list[i], `${where}[${i}]`, role);
    if (!p.ok) return p;
    parts.push(p.value);
  }
  return { ok: true, value: { type: "message", role, content: parts } };
}

/** A function result: a string, a JSON value, or content blocks (text, images, documents). */
function functionOutput(result: unknown, where: string): Result<unknown, ApiError> {
  if (typeof result === "string") return { ok: true, value: result };
  if (Array.isArray(result)) {
    const parts: Json[] = [];
    for (let i = 0; i < result.length; i++) {
      const p = contentPart(result[i], `${where}[${i}]`, "user");
      if (!p.ok) return p;
      parts.push(p.value);
    }
    return { ok: true, value: parts };
  }
  return { ok: true, value: JSON.stringify(result ?? null) };
}

/** One step of the history → Responses input items (a thought is the model's own state: not replayed). */
function stepItems(s: Json, where: string): Result<Json[], ApiError> {
  switch (s.type) {
    case "user_input": {
      const m = message("user", s.content, `${where}.content`);
      return m.ok ? { ok: true, value: [m.value] } : m;
    }
    case "model_output": {
      const m = message("assistant", s.content, `${where}.content`);
      return m.ok ? { ok: true, value: [m.value] } : m;
    }
    case "function_call":
      if (typeof s.id !== "string" || typeof s.name !== "string") return bad(where, "must have an `id` and a `name`");
      return { ok: true, value: [{ type: "function_call", call_id: s.id, name: s.name, arguments: JSON.stringify(s.arguments ?? {}) }] };
    case "function_result": {
      if (typeof s.call_id !== "string") return bad(`${where}.call_id`, "must be a string");
      const out = functionOutput(s.result, `${where}.result`);
      return out.ok ? { ok: true, value: [{ type: "function_call_output", call_id: s.call_id, output: out.value }] } : out;
    }
    case "thought":
      return { ok: true, value: [] };
    default:
      return bad(`${where}.type`, `'${String(s.type).slice(0, 40)}' steps cannot be served through the gateway`);
  }
}

const STEP_TYPES = new Set(["user_input", "model_output", "function_call", "function_result", "thought"]);

function input(v: unknown): Result<string | Json[], ApiError> {
  if (typeof v === "string") return { ok: true, value: v };
  if (isObject(v)) {
    const m = message("user", [v], "input");
    return m.ok ? { ok: true, value: [m.value] } : m;
  }
  if (!Array.isArray(v)) return bad("input", "must be a string, a content object, or an array of contents or steps");
  // Steps and contents are told apart by their `type` (a step's is never a content's).
  if (v.length && v.every((x) => isObject(x) && STEP_TYPES.has(x.type as string))) {
    const items: Json[] = [];
    for (let i = 0; i < v.length; i++) {
      const r = stepItems(v[i] as Json, `input[${i}]`);
      if (!r.ok) return r;
      items.push(...r.value);
    }
    return { ok: true, value: items };
  }
  const m = message("user", v, "input");
  return m.ok ? { ok: true, value: [m.value] } : m;
}

function tools(v: unknown): Result<Json[], ApiError> {
  if (!Array.isArray(v)) return bad("tools", "must be an array");
  const out: Json[] = [];
  for (let i = 0; i < v.length; i++) {
    const t = v[i];
    if (!isObject(t) || t.type !== "function") return bad(`tools[${i}].type`, `'${isObject(t) ? String(t.type).slice(0, 40) : "?"}' tools cannot be served through the gateway (function tools can)`);
    if (typeof t.name !== "string" || !t.name) return bad(`tools[${i}].name`, "must be a non-empty string");
    out.push({ type: "function", name: t.name, description: t.description ?? null, parameters: t.parameters ?? { type: "object", properties: {} }, strict: false });
  }
  return { ok: true, value: out };
}

function toolChoice(v: unknown): Result<unknown, ApiError> {
  const mode = (m: unknown) => (m === "any" || m === "validated" ? "required" : m === "none" ? "none" : "auto");
  if (typeof v === "string") return ["auto", "any", "none", "validated"].includes(v) ? { ok: true, value: mode(v) } : bad("generation_config.tool_choice", "must be auto, any, none or validated");
  if (isObject(v) && isObject(v.allowed_tools)) {
    const names = v.allowed_tools.tools;
    if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) return bad("generation_config.tool_choice.allowed_tools.tools", "must be an array of tool names");
    return { ok: true, value: { type: "allowed_tools", mode: mode(v.allowed_tools.mode) === "required" ? "required" : "auto", tools: names.map((name) => ({ type: "function", name })) } };
  }
  return bad("generation_config.tool_choice", "must be a mode or { allowed_tools }");
}

/** generation_config → the Responses sampling, length, reasoning and tool-choice fields. */
function generationConfig(g: unknown, out: Json): Result<Json, ApiError> {
  if (g === undefined || g === null) return { ok: true, value: out };
  if (!isObject(g)) return bad("generation_config", "must be an object");
  for (const [k, v] of Object.entries(g)) {
    if (v === undefined || v === null) continue;
    switch (k) {
      case "max_output_tokens":
        out.max_output_tokens = v;
        break;
      case "temperature":
      case "top_p":
        out[k] = v;
        break;
      case "thinking_level":
        if (!["minimal", "low", "medium", "high"].includes(v as string)) return bad("generation_config.thinking_level", "must be minimal, low, medium or high");
        out.reasoning = { ...(out.reasoning as Json | undefined), effort: v };
        break;
      case "thinking_summaries":
        if (v !== "auto" && v !== "none") return bad("generation_config.thinking_summaries", "must be auto or none");
        if (v === "auto") out.reasoning = { ...(out.reasoning as Json | undefined), summary: "auto" };
        break;
      case "tool_choice": {
        const c = toolChoice(v);
        if (!c.ok) return c;
        out.tool_choice = c.value;
        break;
      }
      default:
        // stop_sequences, seed, speech, image and transcription settings have no Responses field.
        return bad(`generation_config.${k}`, "cannot be served through the gateway");
    }
  }
  return { ok: true, value: out };
}

/** `response_format` (a JSON schema for text) → Responses structured output. */
function responseFormat(v: unknown): Result<Json, ApiError> {
  const f = Array.isArray(v) ? (v.length === 1 ? v[0] : undefined) : v;
  if (!isObject(f) || (f.type !== undefined && f.type !== "text")) return bad("response_format", "must be one text format (a JSON schema)");
  if (f.mime_type !== undefined && f.mime_type !== "application/json") return bad("response_format.mime_type", "must be application/json");
  if (!isObject(f.schema)) return { ok: true, value: { format: { type: "json_object" } } };
  return { ok: true, value: { format: { type: "json_schema", name: "response", schema: f.schema, strict: false } } };
}

export interface InteractionCall {
  /** The Responses body (`previous_response_id` named as such). */
  body: Json;
  stream: boolean;
}

/** An Interactions create body → the Responses body that serves it. */
export function interactionToResponses(raw: unknown): Result<InteractionCall, ApiError> {
  if (!isObject(raw)) return { ok: false, error: errors.invalidRequest("Request body must be a JSON object.") };
  for (const k of REFUSED) if (raw[k] !== undefined && raw[k] !== null) return bad(k, "cannot be served through the gateway");
  if (typeof raw.model !== "string" || !raw.model) return bad("model", "is required (agents are not served)");
  const body: Json = { model: raw.model.replace(/^models\//, "") };
  if (raw.input === undefined || raw.input === null) return bad("input", "is required");
  const inp = input(raw.input);
  if (!inp.ok) return inp;
  body.input = inp.value;
  if (raw.system_instruction !== undefined && raw.system_instruction !== null) {
    if (typeof raw.system_instruction !== "string") return bad("system_instruction", "must be a string");
    body.instructions = raw.system_instruction;
  }
  if (raw.tools !== undefined && raw.tools !== null) {
    const t = tools(raw.tools);
    if (!t.ok) return t;
    if (t.value.length) body.tools = t.value;
  }
  const g = generationConfig(raw.generation_config, body);
  if (!g.ok) return g;
  if (raw.response_format !== undefined && raw.response_format !== null) {
    const f = responseFormat(raw.response_format);
    if (!f.ok) return f;
    body.text = f.value;
  } else if (raw.response_mime_type === "application/json") body.text = { format: { type: "json_object" } };
  if (raw.previous_interaction_id !== undefined && raw.previous_interaction_id !== null) {
    if (typeof raw.previous_interaction_id !== "string" || !raw.previous_interaction_id) return bad("previous_interaction_id", "must be an interaction id");
    body.previous_response_id = raw.previous_interaction_id;
  }
  for (const k of ["store", "background", "stream"] as const) {
    if (raw[k] === undefined || raw[k] === null) continue;
    if (typeof raw[k] !== "boolean") return bad(k, "must be a boolean");
    body[k] = raw[k];
  }
  return { ok: true, value: { body, stream: raw.stream === true } };
}
