/**
 * Canonical request → Amazon Bedrock Converse body (docs.aws.amazon.com, "Converse" API
 * reference): one shape for every text model on Bedrock. Claude's thinking goes in
 * `additionalModelRequestFields` (Anthropic's own `thinking`), the only model-specific field.
 */
import { partsText, type CanonicalRequest, type ContentPart, type ImagePart } from "../canonical";
import { logprobsRefusal } from "../conversion/policy";
import { anthropicThinking } from "../conversion/reasoning";
import { bareToolId } from "../conversion/signatures";
import { functionOf } from "./openai-chat-request";
import type { Built, Inexpressible } from "./text-types";

const IMAGE_FORMATS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp" };

function image(p: ImagePart, field: string): Record<string, unknown> | Inexpressible {
  const format = p.source.kind === "base64" ? IMAGE_FORMATS[p.source.mediaType] : undefined;
  if (p.source.kind !== "base64" || !format) return { ok: false, error: { field: p.path ?? field, message: "only PNG, JPEG, GIF and WebP images sent inline are supported by this model" } };
  return { image: { format, source: { bytes: p.source.data } } };
}

/** Bedrock's document names: letters, digits, spaces, hyphens, parentheses and brackets. */
function documentName(filename: string | undefined, n: number): string {
  const clean = (filename ?? "").replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9 ()[\]-]/g, " ").replace(/\s+/g, " ").trim();
  return clean || `document ${n}`;
}

function block(p: ContentPart, n: number): Record<string, unknown> | Inexpressible | null {
  switch (p.type) {
    case "text":
      return p.text === "" ? null : { text: p.text };
    case "image":
      return image(p, "messages");
    case "document":
      if (p.source.kind === "text") return { text: p.source.text };
      if (p.source.kind !== "base64" || p.source.mediaType !== "application/pdf")
        return { ok: false, error: { field: p.path ?? "messages", message: "only PDF documents sent inline (or plain text) are supported by this model" } };
      return { document: { format: "pdf", name: documentName(p.filename, n), source: { bytes: p.source.data } } };
    case "tool_call": {
      let input: unknown;
      try {
        input = p.arguments ? JSON.parse(p.arguments) : {};
      } catch {
        input = { input: p.arguments };
      }
      return { toolUse: { toolUseId: bareToolId(p.id), name: p.name, input } };
    }
    case "tool_result": {
      const content: unknown[] = [];
      for (const c of p.content) {
        if (c.type === "text") content.push({ text: c.text });
        else {
          // Converse's toolResult takes image and document blocks as the message content does.
          const b = block(c, n);
          if (b && "ok" in b) return b as Inexpressible;
          if (b) content.push(b);
        }
      }
      if (!content.length) content.push({ text: partsText(p.content) });
      return { toolResult: { toolUseId: bareToolId(p.callId), content, ...(p.isError ? { status: "error" } : {}) } };
    }
    case "reasoning":
      return null; // another vendor's (or an earlier turn's) reasoning is never replayed
  }
}

export function toConverseBody(req: CanonicalRequest, upstreamModel: string): Built | Inexpressible {
  // Converse returns no token log-probabilities: data the client asked for, so refused.
  const noLogprobs = logprobsRefusal(req);
  if (noLogprobs) return noLogprobs;
  if (req.responseFormat && req.responseFormat.type !== "text")
    return { ok: false, error: { field: "response_format", message: "structured output is not supported by this model's upstream" } };
  const messages: Record<string, unknown>[] = [];
  let docs = 0;
  let toolBlocks = false;
  for (const m of req.messages) {
    const content: unknown[] = [];
    for (const p of m.parts) {
      if (p.type === "document") docs++;
      if (p.type === "tool_call" || p.type === "tool_result") toolBlocks = true;
      const b = block(p, docs);
      if (b && "ok" in b) return b as Inexpressible;
      if (b) content.push(b);
    }
    if (content.length) messages.push({ role: m.role, content });
  }
  const body: Record<string, unknown> = { messages };
  if (req.system) body.system = [{ text: req.system }];
  const inference: Record<string, unknown> = {};
  if (req.maxOutputTokens !== undefined) inference.maxTokens = req.maxOutputTokens;
  if (req.temperature !== undefined) inference.temperature = req.temperature;
  if (req.topP !== undefined) inference.topP = req.topP;
  if (req.stop?.length) inference.stopSequences = req.stop;
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  if (req.tools?.length) {
    if (req.toolChoice?.type === "none" && !toolBlocks) {
      // Converse has no "none": without tools the model cannot call one.
    } else {
      const tools = req.tools.map((t) => {
        const f = functionOf(t);
        return { toolSpec: { name: f.name, ...(f.description ? { description: f.description } : {}), inputSchema: { json: f.parameters } } };
      });
      const toolConfig: Record<string, unknown> = { tools };
      const tc = req.toolChoice;
      if (tc?.type === "none") return { ok: false, error: { field: "tool_choice", message: "\"none\" with tool calls in the history is not supported by this model's upstream" } };
      if (tc?.type === "required") toolConfig.toolChoice = { any: {} };
      else if (tc?.type === "tool") toolConfig.toolChoice = { tool: { name: tc.name } };
      body.toolConfig = toolConfig;
    }
  }
  // Claude on Bedrock thinks as Anthropic's API does; other models have no switch here.
  const thinking = /anthropic\.claude/.test(upstreamModel) ? anthropicThinking(req) : undefined;
  const dropped: string[] = [];
  if (thinking) {
    body.additionalModelRequestFields = { thinking };
    // Claude refuses sampling knobs with thinking on (the conversion policy's Anthropic rule): named.
    if (inference.temperature !== undefined && inference.temperature !== 1) (delete inference.temperature, dropped.push("temperature"));
    if (inference.topP !== undefined) (delete inference.topP, dropped.push("top_p"));
  }
  return { ok: true, value: body, ...(dropped.length ? { dropped } : {}) };
}
