/** generateContent wire request → canonical request (model and streaming come from the URL). */
import type { CanonicalMessage, CanonicalRequest, CanonicalTool, ContentPart, DocumentPart, HostedTool, ImagePart, ReasoningControl, ResponseFormat, ToolChoice, ToolResultContent } from "../../canonical";
import { parseEffort } from "../../conversion/reasoning";
import { idWithSignature } from "../../conversion/signatures";
import type { ParseOptions } from "../types";
import type { Result } from "../../../result";
import type { ApiError } from "../../errors";
import { bad, zodError } from "../validate";
import { camelKeys, toJsonSchema } from "./camel";
import { gcRequest } from "./schema";

export function parseGenerateContentRequest(body: unknown, opts: ParseOptions = {}): Result<CanonicalRequest, ApiError> {
  const parsed = gcRequest.safeParse(camelKeys(body));
  if (!parsed.success) return { ok: false, error: zodError(parsed.error) };
  const b = parsed.data;
  const g = b.generationConfig ?? {};
  if (b.cachedContent) return { ok: false, error: bad("cachedContent", "cached contents are not supported") };
  const unconvertible: string[] = [];
  // Several candidates: a Gemini upstream (passthrough) makes them; a converted route refuses.
  if (g.candidateCount && g.candidateCount > 1) unconvertible.push("generationConfig.candidateCount");
  // Log-probabilities: data only a Gemini upstream (passthrough) gives back in Gemini's shape.
  if ((g as { responseLogprobs?: unknown }).responseLogprobs === true) unconvertible.push("generationConfig.responseLogprobs");
  // Reasoning controls map (docs/conversion-policy.md, "Reasoning").
  let reasoning: ReasoningControl | undefined;
  const tc = g.thinkingConfig;
  if (tc) {
    const show = tc.includeThoughts === true;
    if (tc.thinkingLevel !== undefined) {
      const e = parseEffort(tc.thinkingLevel.toLowerCase());
      if (!e || e === "none") return { ok: false, error: bad("generationConfig.thinkingConfig.thinkingLevel", `unknown level "${tc.thinkingLevel}"`) };
      reasoning = { enabled: true, effort: e, show };
    } else if (tc.thinkingBudget === 0) reasoning = { enabled: false };
    else if (tc.thinkingBudget === -1) reasoning = { enabled: true, adaptive: true, show };
    else if (tc.thinkingBudget !== undefined) reasoning = { enabled: true, budgetTokens: tc.thinkingBudget, show };
    else if (show) reasoning = { enabled: true, adaptive: true, show };
  }
  const messages: CanonicalMessage[] = [];
  // GC ids are optional: synthesise stable ones and pair responses with calls by name, in order.
  const pending: Array<{ id: string; name: string; visible: string }> = [];
  let synth = 0;
  for (let i = 0; i < b.contents.length; i++) {
    const c = b.contents[i]!;
    const role = c.role === "model" ? "assistant" : c.role === "user" || c.role === undefined || c.role === "function" ? "user" : null;
    if (!role) return { ok: false, error: bad(`contents[${i}].role`, `must be user or model, not "${c.role}"`) };
    const parts: ContentPart[] = [];
    for (let j = 0; j < c.parts.length; j++) {
      const p = c.parts[j]!;
      const where = `contents[${i}].parts[${j}]`;
      if (typeof p.text === "string") {
        if (p.thought) {
          if (role === "assistant" && p.text !== "") parts.push({ type: "reasoning", origin: "gemini", text: p.text, signature: p.thoughtSignature });
          continue;
        }
        if (p.text !== "") parts.push({ type: "text", text: p.text });
      } else if (p.inlineData || p.fileData) {
        const r = media(p, where);
        if (!r.ok) return r;
        parts.push(r.value);
      } else if (p.functionCall) {
        const id = p.functionCall.id ?? `call_gc${i}_${synth++}`;
        const visible = idWithSignature(id, p.thoughtSignature);
        pending.push({ id, name: p.functionCall.name, visible });
        parts.push({ type: "tool_call", id: visible, name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args ?? {}), signature: p.thoughtSignature });
      } else if (p.functionResponse) {
        const fr = p.functionResponse;
        let id = fr.id;
        const k = pending.findIndex((q) => (id ? q.id === id : q.name === fr.name));
        // The result pairs with the call's visible id (which carries its signature).
        if (k >= 0) id = pending.splice(k, 1)[0]!.visible;
        id ??= `call_gc${i}_${synth++}`;
        const resp = fr.response as Record<string, unknown> | undefined;
        const isError = !!resp && "error" in resp && !("output" in resp);
        const value = resp && typeof resp === "object" && ("output" in resp || "error" in resp) ? (resp.output ?? resp.error) : resp;
        const text = typeof value === "string" ? value : JSON.stringify(value ?? {});
        const content: ToolResultContent[] = [{ type: "text", text }];
        // What the function read (a screenshot, a file): the AI SDK's Google provider sends it here.
        for (let k = 0; k < (fr.parts ?? []).length; k++) {
          const r = media(fr.parts![k]!, `${where}.functionResponse.parts[${k}]`);
          if (!r.ok) return r;
          content.push(r.value);
        }
        parts.push({ type: "tool_result", callId: id, name: fr.name, content, isError: isError || undefined });
      } else {
        return { ok: false, error: bad(where, "unsupported part (text, inlineData, fileData, functionCall and functionResponse are)") };
      }
    }
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else messages.push({ role, parts });
  }

  const tools: CanonicalTool[] = [];
  const hostedTools: HostedTool[] = [];
  for (let i = 0; i < (b.tools ?? []).length; i++) {
    const t = b.tools![i]! as Record<string, unknown> & { functionDeclarations?: Array<{ name: string; description?: string; parameters?: unknown; parametersJsonSchema?: unknown }> };
    // Google's own tools: mapped where the target has one, else dropped as hints.
    for (const k of Object.keys(t)) {
      if (k === "functionDeclarations") continue;
      const type: HostedTool["type"] = k === "googleSearch" || k === "googleSearchRetrieval" ? "web_search" : k === "codeExecution" ? "code_execution" : k === "urlContext" ? "url_context" : "other";
      hostedTools.push({ type, label: `tools[${i}].${k}` });
    }
    for (const f of t.functionDeclarations ?? [])
      tools.push({
        name: f.name,
        description: f.description,
        parameters: (f.parametersJsonSchema ?? (f.parameters ? toJsonSchema(f.parameters) : undefined)) as Record<string, unknown> | undefined,
      });
  }

  let toolChoice: ToolChoice | undefined;
  const fc = b.toolConfig?.functionCallingConfig;
  if (fc?.mode) {
    const mode = fc.mode.toUpperCase();
    const names = fc.allowedFunctionNames ?? [];
    if (mode === "AUTO" || mode === "VALIDATED") toolChoice = { type: "auto" };
    else if (mode === "NONE") toolChoice = { type: "none" };
    else if (mode === "ANY") {
      if (names.length > 1)
        return { ok: false, error: bad("toolConfig.functionCallingConfig.allowedFunctionNames", "at most one name is supported") };
      toolChoice = names.length === 1 ? { type: "tool", name: names[0]! } : { type: "required" };
    } else return { ok: false, error: bad("toolConfig.functionCallingConfig.mode", `unknown mode "${fc.mode}"`) };
  }

  let responseFormat: ResponseFormat | undefined;
  if (g.responseMimeType === "application/json") {
    const schema = g.responseJsonSchema ?? (g.responseSchema ? toJsonSchema(g.responseSchema) : undefined);
    responseFormat = schema ? { type: "json_schema", name: "response", schema: schema as Record<string, unknown> } : { type: "json_object" };
  } else if (g.responseMimeType && g.responseMimeType !== "text/plain")
    return { ok: false, error: bad("generationConfig.responseMimeType", `"${g.responseMimeType}" is not supported`) };

  const si = b.systemInstruction;
  const system = typeof si === "string" ? si : si?.parts?.map((p) => p.text ?? "").join("") || undefined;
  return {
    ok: true,
    value: {
      model: opts.pathModel ?? b.model ?? "",
      system,
      messages,
      stream: opts.stream === true,
      maxOutputTokens: g.maxOutputTokens,
      n: g.candidateCount ?? undefined,
      temperature: g.temperature,
      topP: g.topP,
      topK: g.topK,
      stop: g.stopSequences,
      seed: g.seed,
      presencePenalty: g.presencePenalty,
      frequencyPenalty: g.frequencyPenalty,
      tools: tools.length ? tools : undefined,
      toolChoice,
      responseFormat,
      reasoning,
      hostedTools: hostedTools.length ? hostedTools : undefined,
      unconvertible: unconvertible.length ? unconvertible : undefined,
    },
  };
}

/** An `inlineData` / `fileData` part (in contents or in a function response) as an image or a document. */
function media(p: { inlineData?: { mimeType: string; data: string }; fileData?: { mimeType?: string; fileUri: string } }, where: string): Result<ImagePart | DocumentPart, ApiError> {
  if (p.inlineData) {
    const { mimeType, data } = p.inlineData;
    if (mimeType.startsWith("image/")) return { ok: true, value: { type: "image", source: { kind: "base64", mediaType: mimeType, data }, path: where } };
    if (mimeType === "text/plain") return { ok: true, value: { type: "document", source: { kind: "text", text: Buffer.from(data, "base64").toString("utf8") }, path: where } };
    if (mimeType === "application/pdf") return { ok: true, value: { type: "document", source: { kind: "base64", mediaType: mimeType, data }, path: where } };
    return { ok: false, error: bad(`${where}.inlineData.mimeType`, `only images, PDFs and plain text are supported, not ${mimeType}`) };
  }
  const mime = p.fileData!.mimeType;
  if (mime && !mime.startsWith("image/")) return { ok: true, value: { type: "document", source: { kind: "url", url: p.fileData!.fileUri }, path: where } };
  return { ok: true, value: { type: "image", source: { kind: "url", url: p.fileData!.fileUri }, path: where } };
}
