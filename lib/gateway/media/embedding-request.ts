/**
 * POST /v1/embeddings body → a normalized request, or a 400 naming the field. Unknown fields
 * pass through untouched (they are simply not forwarded).
 */
import { z } from "zod";
import { errors, type ApiError } from "../errors";
import type { Err, Result } from "../../result";

/** OpenAI's own limit on inputs per request (reference/media.md). */
export const MAX_EMBEDDING_INPUTS = 2048;
export const MAX_EMBEDDING_DIMENSIONS = 8192;

export type EmbeddingInput = { kind: "text"; texts: string[] } | { kind: "tokens"; tokens: number[][] };
export type EncodingFormat = "float" | "base64";

export interface EmbeddingRequest {
  model: string;
  input: EmbeddingInput;
  /** What the client asked for; the openai SDK sends "base64" when its caller named none. */
  encodingFormat: EncodingFormat;
  dimensions?: number;
  user?: string;
  /** Gemini-only hints (`taskType`, `title`), forwarded to Gemini upstreams, named as dropped elsewhere. */
  geminiHints?: { taskType?: string; title?: string };
}

const bodySchema = z.looseObject({
  model: z.unknown().optional(),
  input: z.unknown().optional(),
  encoding_format: z.unknown().optional(),
  dimensions: z.unknown().optional(),
  user: z.unknown().optional(),
});

export function parseEmbeddingRequest(body: unknown): Result<EmbeddingRequest, ApiError> {
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) return bad("The request body must be a JSON object.");
  const b = parsed.data;
  if (typeof b.model !== "string" || b.model.length === 0) return bad("`model` is required and must be a string.", "model");

  const input = parseInput(b.input);
  if (!input.ok) return input;

  let encodingFormat: EncodingFormat = "float";
  if (b.encoding_format !== undefined && b.encoding_format !== null) {
    if (b.encoding_format !== "float" && b.encoding_format !== "base64")
      return bad('`encoding_format` must be "float" or "base64".', "encoding_format");
    encodingFormat = b.encoding_format;
  }

  let dimensions: number | undefined;
  if (b.dimensions !== undefined && b.dimensions !== null) {
    if (!Number.isInteger(b.dimensions) || (b.dimensions as number) < 1 || (b.dimensions as number) > MAX_EMBEDDING_DIMENSIONS)
      return bad(`\`dimensions\` must be an integer from 1 to ${MAX_EMBEDDING_DIMENSIONS}.`, "dimensions");
    dimensions = b.dimensions as number;
  }

  if (b.user !== undefined && b.user !== null && typeof b.user !== "string") return bad("`user` must be a string.", "user");

  return {
    ok: true,
    value: { model: b.model, input: input.value, encodingFormat, dimensions, user: (b.user as string | undefined) ?? undefined },
  };
}

function parseInput(raw: unknown): Result<EmbeddingInput, ApiError> {
  if (raw === undefined || raw === null) return bad("`input` is required: a string or an array of strings.", "input");
  if (typeof raw === "string") {
    if (raw.length === 0) return bad("`input` must not be an empty string.", "input");
    return { ok: true, value: { kind: "text", texts: [raw] } };
  }
  if (!Array.isArray(raw)) return bad("`input` must be a string or an array of strings.", "input");
  if (raw.length === 0) return bad("`input` must not be an empty array.", "input");
  if (raw.length > MAX_EMBEDDING_INPUTS)
    return bad(`\`input\` has ${raw.length} items; at most ${MAX_EMBEDDING_INPUTS} are allowed per request.`, "input");

  if (raw.every((x) => typeof x === "string")) {
    const empty = raw.findIndex((x) => x.length === 0);
    if (empty >= 0) return bad(`\`input[${empty}]\` must not be an empty string.`, "input");
    return { ok: true, value: { kind: "text", texts: raw as string[] } };
  }
  // One token array, or several.
  if (raw.every((x) => typeof x === "number")) {
    const bad1 = checkTokens(raw as number[], "input");
    return bad1 ?? { ok: true, value: { kind: "tokens", tokens: [raw as number[]] } };
  }
  if (raw.every((x) => Array.isArray(x))) {
    for (let i = 0; i < raw.length; i++) {
      const item = raw[i] as unknown[];
      if (item.length === 0) return bad(`\`input[${i}]\` must not be an empty token array.`, "input");
      if (!item.every((t) => typeof t === "number")) return bad(`\`input[${i}]\` must be an array of token ids.`, "input");
      const err = checkTokens(item as number[], `input[${i}]`);
      if (err) return err;
    }
    return { ok: true, value: { kind: "tokens", tokens: raw as number[][] } };
  }
  const at = raw.findIndex((x) => typeof x !== "string");
  return bad(`\`input[${at}]\` must be a string (an array must hold only strings, or only token arrays).`, "input");
}

function checkTokens(tokens: number[], name: string): Err<ApiError> | null {
  const at = tokens.findIndex((t) => !Number.isSafeInteger(t) || t < 0);
  return at >= 0 ? bad(`\`${name}[${at}]\` must be a non-negative integer token id.`, "input") : null;
}

function bad(message: string, param?: string): Err<ApiError> {
  return { ok: false, error: errors.invalidRequest(message, param) };
}

/** How many inputs, whatever their form. */
export function inputCount(input: EmbeddingInput): number {
  return input.kind === "text" ? input.texts.length : input.tokens.length;
}
