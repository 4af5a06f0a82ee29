/**
 * Canonical request → Google's Interactions API body (`POST /v1beta/interactions`), for the
 * `gemini-interactions` upstream. Messages become steps (`user_input`, `model_output`,
 * `function_call`, `function_result`); the caller chooses which messages go (only the new turn
 * when the vendor holds the rest: gemini-interactions-chain.ts).
 */
import type { CanonicalMessage, CanonicalRequest, ReasoningEffort, ToolResultContent } from "../canonical";
import { argumentsToObject } from "../canonical";
import { logprobsRefusal } from "../conversion/policy";
import { bareToolId } from "../conversion/signatures";
import type { Inexpressible } from "./text-types";
import type { Ok } from "../../result";

type Json = Record<string, unknown>;

function content(p: ToolResultContent): Json {
  if (p.type === "text") return { type: "text", text: p.text };
  const src = p.source;
  const kind = p.type === "image" ? "image" : "document";
  if (src.kind === "base64") return { type: kind, data: src.data, mime_type: src.mediaType };
  if (src.kind === "url") return { type: kind, uri: src.url };
  return { type: "text", text: src.text };
}

/** Messages → steps. Reasoning of earlier turns is the vendor's own state (kept with the interaction), never replayed. */
export function interactionSteps(messages: CanonicalMessage[]): Ok<Json[]> | Inexpressible {
  const steps: Json[] = [];
  for (const m of messages) {
    let contents: Json[] = [];
    const flush = () => {
      if (contents.length) steps.push({ type: m.role === "assistant" ? "model_output" : "user_input", content: contents });
      contents = [];
    };
    for (const p of m.parts) {
      if (p.type === "reasoning") continue;
      if (p.type === "text" || p.type === "image" || p.type === "document") {
        if (m.role === "assistant" && p.type !== "text") return { ok: false, error: { field: "messages", message: `a ${p.type} part cannot appear in an assistant turn` } };
        contents.push(content(p));
      } else if (p.type === "tool_call") {
        if (m.role !== "assistant") return { ok: false, error: { field: "messages", message: "a tool call cannot appear in a user turn" } };
        flush();
        steps.push({ type: "function_call", id: bareToolId(p.id), name: p.name, arguments: argumentsToObject(p.arguments) });
      } else {
        flush();
        const onlyText = p.content.every((c) => c.type === "text");
        const result = onlyText ? p.content.map((c) => (c as { text: string }).text).join("") : p.content.map(content);
        steps.push({ type: "function_result", call_id: bareToolId(p.callId), ...(p.name ? { name: p.name } : {}), result, ...(p.isError ? { is_error: true } : {}) });
      }
    }
    flush();
  }
  return { ok: true, value: steps };
}

const LEVEL: Record<ReasoningEffort, string> = { minimal: "minimal", low: "low", medium: "medium", high: "high", xhigh: "high", max: "high" };

/** Everything but the input: model, instructions, tools and generation settings. */
export function interactionSettings(req: CanonicalRequest, upstreamModel: string): Ok<Json> | Inexpressible {
  const noLogprobs = logprobsRefusal(req);
  if (noLogprobs) return noLogprobs;
  const body: Json = { model: upstreamModel };
  if (req.system) body.system_instruction = req.system;
  if (req.tools?.length) body.tools = req.tools.map((t) => ({ type: "function", name: t.name, description: t.description ?? "", parameters: t.parameters ?? { type: "object", properties: {} } }));
  const g: Json = {};
  if (req.maxOutputTokens !== undefined) g.max_output_tokens = req.maxOutputTokens;
  if (req.temperature !== undefined) g.temperature = req.temperature;
  if (req.topP !== undefined) g.top_p = req.topP;
  if (req.seed !== undefined) g.seed = req.seed;
  if (req.stop?.length) g.stop_sequences = req.stop;
  const r = req.reasoning;
  if (r) {
    // Gemini cannot switch thinking off: "minimal" is its nearest setting.
    g.thinking_level = r.enabled ? LEVEL[r.effort ?? "medium"] : "minimal";
    if (r.enabled && r.show) g.thinking_summaries = "auto";
  }
  const tc = req.toolChoice;
  if (tc) g.tool_choice = tc.type === "tool" ? { allowed_tools: { mode: "any", tools: [tc.name] } } : tc.type === "required" ? "any" : tc.type;
  if (Object.keys(g).length) body.generation_config = g;
  const rf = req.responseFormat;
  if (rf?.type === "json_object") body.response_format = { type: "text", mime_type: "application/json" };
  else if (rf?.type === "json_schema") body.response_format = { type: "text", mime_type: "application/json", schema: rf.schema };
  return { ok: true, value: body };
}
