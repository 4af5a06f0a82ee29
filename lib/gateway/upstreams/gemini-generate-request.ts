/** Canonical request → Gemini generateContent wire body (reference/generate-content.md). */
import { argumentsToObject, partsText, type CanonicalRequest, type DocumentPart, type ImagePart } from "../canonical";
import { geminiThinkingConfig } from "../conversion/reasoning";
import { GEMINI_SKIP_SIGNATURE, isGemini3 } from "../conversion/signatures";
import { customToolAsFunction } from "./openai-chat-request";
import { isInexpressible, type Built, type Inexpressible } from "./text-types";

/** GC's documented limit on stop sequences. */
export const GEMINI_MAX_STOP = 5;

/** An image or document as a Gemini part (inline bytes; plain text as a text part). */
function mediaPart(p: ImagePart | DocumentPart): Record<string, unknown> | Inexpressible {
  const src = p.source;
  if (src.kind === "url")
    return p.type === "image"
      ? { ok: false, error: { field: p.path ?? "image", message: "image URLs other than http(s) are not supported by this model; send the image inline as base64" } }
      : { ok: false, error: { field: p.path ?? "messages", message: "document URLs are not supported by this model; send the file inline as base64" } };
  if (src.kind === "text") return { text: src.text };
  if (p.type === "document" && src.mediaType !== "application/pdf" && !src.mediaType.startsWith("text/"))
    return { ok: false, error: { field: p.path ?? "messages", message: `documents of type ${src.mediaType} are not supported by this model (PDF and text are)` } };
  return { inlineData: { mimeType: src.mediaType, data: src.data } };
}

/** What Gemini 3 takes inside a function response (Google's list: png, jpeg, webp, PDF, plain text). */
const FUNCTION_RESPONSE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"]);

function functionResponseMedia(part: Record<string, unknown>): boolean {
  const d = part.inlineData as { mimeType?: string } | undefined;
  return !!d && FUNCTION_RESPONSE_TYPES.has(d.mimeType ?? "");
}

export function toGeminiBody(req: CanonicalRequest, upstreamModel = ""): Built | Inexpressible {
  const gemini3 = isGemini3(upstreamModel);
  if (req.stop && req.stop.length > GEMINI_MAX_STOP)
    return { ok: false, error: { field: "stop", message: `at most ${GEMINI_MAX_STOP} stop sequences are accepted by this model` } };

  // GC's functionResponse needs the function name; the other protocols only carry the call id.
  const names = new Map<string, string>();
  for (const m of req.messages) for (const p of m.parts) if (p.type === "tool_call") names.set(p.id, p.name);

  const contents: Array<{ role: string; parts: Record<string, unknown>[] }> = [];
  for (const m of req.messages) {
    const parts: Record<string, unknown>[] = [];
    for (const p of m.parts) {
      if (p.type === "text") {
        if (p.text !== "") parts.push({ text: p.text });
      } else if (p.type === "image" || p.type === "document") {
        const part = mediaPart(p);
        if (isInexpressible(part)) return part;
        parts.push(part);
      } else if (p.type === "reasoning") {
        continue; // thought text is not replayed; Gemini's signatures ride on the calls
      } else if (p.type === "tool_call") {
        const part: Record<string, unknown> = { functionCall: { name: p.name, args: argumentsToObject(p.arguments) } };
        // Gemini 3 refuses a replayed call without its signature; Google documents a placeholder
        // for calls whose signature is unknown (history from another vendor or client).
        const sig = p.signature ?? (gemini3 ? GEMINI_SKIP_SIGNATURE : undefined);
        if (sig) part.thoughtSignature = sig;
        parts.push(part);
      } else {
        const name = p.name ?? names.get(p.callId);
        if (!name) return { ok: false, error: { field: "messages", message: `a tool result answers call "${p.callId}", which no earlier turn made` } };
        const text = partsText(p.content);
        const response = { name, response: p.isError ? { error: text } : { output: text } };
        // What the tool read: Gemini 3 takes it inside the function response (multimodal function
        // responses); earlier models read it as parts right beside it.
        const inside: Record<string, unknown>[] = [];
        const beside: Record<string, unknown>[] = [];
        for (const c of p.content) {
          if (c.type === "text") continue;
          const part = mediaPart(c);
          if (isInexpressible(part)) return part;
          if (gemini3 && functionResponseMedia(part)) inside.push(part);
          else beside.push(part);
        }
        parts.push({ functionResponse: inside.length ? { ...response, parts: inside } : response });
        if (beside.length) parts.push({ text: `Attachments of the result of ${name}:` }, ...beside);
      }
    }
    if (!parts.length) continue;
    const role = m.role === "assistant" ? "model" : "user";
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }

  const gen: Record<string, unknown> = {};
  if (req.temperature !== undefined) gen.temperature = req.temperature;
  if (req.topP !== undefined) gen.topP = req.topP;
  if (req.topK !== undefined) gen.topK = req.topK;
  if (req.maxOutputTokens !== undefined) gen.maxOutputTokens = req.maxOutputTokens;
  if (req.stop?.length) gen.stopSequences = req.stop;
  if (req.seed !== undefined) gen.seed = req.seed;
  if (req.presencePenalty !== undefined) gen.presencePenalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) gen.frequencyPenalty = req.frequencyPenalty;
  // Gemini's own log-probabilities: the chosen token's, and the top alternatives when asked.
  if (req.logprobs || req.topLogprobs !== undefined) gen.responseLogprobs = true;
  if (req.topLogprobs) gen.logprobs = req.topLogprobs;
  if (req.reasoning) gen.thinkingConfig = geminiThinkingConfig(req.reasoning, upstreamModel);
  if (req.responseFormat?.type === "json_object") gen.responseMimeType = "application/json";
  else if (req.responseFormat?.type === "json_schema") {
    gen.responseMimeType = "application/json";
    gen.responseJsonSchema = req.responseFormat.schema;
  }

  const body: Record<string, unknown> = { contents };
  if (req.system) body.systemInstruction = { parts: [{ text: req.system }] };
  if (Object.keys(gen).length) body.generationConfig = gen;
  const tools: Record<string, unknown>[] = [];
  if (req.tools?.length)
    tools.push({
      functionDeclarations: req.tools.map((t) => {
        const f = t.custom ? customToolAsFunction(t) : { description: t.description, parameters: t.parameters };
        return { name: t.name, ...(f.description ? { description: f.description } : {}), ...(f.parameters ? { parametersJsonSchema: f.parameters } : {}) };
      }),
    });
  for (const h of req.hostedTools ?? []) {
    if (h.type === "web_search") tools.push({ googleSearch: {} });
    else if (h.type === "code_execution") tools.push({ codeExecution: {} });
    else if (h.type === "url_context") tools.push({ urlContext: {} });
  }
  if (tools.length) body.tools = tools;
  if (req.toolChoice && req.tools?.length) {
    const tc = req.toolChoice;
    body.toolConfig = {
      functionCallingConfig:
        tc.type === "tool"
          ? { mode: "ANY", allowedFunctionNames: [tc.name] }
          : { mode: tc.type === "required" ? "ANY" : tc.type === "none" ? "NONE" : "AUTO" },
    };
  }
  return { ok: true, value: body };
}
