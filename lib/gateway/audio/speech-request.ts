/** `POST /v1/audio/speech` bodies (OpenAI's shape): validated, unknown fields refused by name. */
import { errors, type ApiError } from "../errors";
import { SPEECH_FORMATS, type SpeechFormat, type SpeechRequest } from "../media/audio-types";
import type { Result } from "../../result";

/** OpenAI's limit; every vendor's is of this order. */
export const MAX_SPEECH_CHARS = 4096;
const KNOWN = new Set(["model", "input", "voice", "response_format", "speed", "instructions", "stream_format"]);

type Parsed = Result<SpeechRequest, ApiError>;

export function parseSpeechRequest(body: unknown): Parsed {
  if (!body || typeof body !== "object" || Array.isArray(body)) return bad("The request body must be a JSON object.");
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((k) => !KNOWN.has(k));
  if (unknown) return bad(`Unknown parameter \`${unknown}\`.`, unknown);
  if (typeof b.model !== "string" || !b.model) return bad("`model` is required and must be a string.", "model");
  if (typeof b.input !== "string" || !b.input.trim()) return bad("`input` is required and must be a non-empty string.", "input");
  if ([...b.input].length > MAX_SPEECH_CHARS) return bad(`\`input\` is longer than ${MAX_SPEECH_CHARS} characters.`, "input");
  // A custom voice is `{ id }` in OpenAI's newer shape.
  const voice = typeof b.voice === "string" ? b.voice : (b.voice as { id?: unknown } | null)?.id;
  if (typeof voice !== "string" || !voice) return bad("`voice` is required (a voice name, or `{ id }`).", "voice");
  const format = b.response_format ?? "mp3";
  if (!SPEECH_FORMATS.includes(format as SpeechFormat)) return bad(`\`response_format\` must be one of ${SPEECH_FORMATS.join(", ")}.`, "response_format");
  if (b.speed !== undefined && (typeof b.speed !== "number" || !(b.speed >= 0.25 && b.speed <= 4))) return bad("`speed` must be a number from 0.25 to 4.", "speed");
  if (b.instructions !== undefined && typeof b.instructions !== "string") return bad("`instructions` must be a string.", "instructions");
  const streamFormat = b.stream_format ?? "audio";
  if (streamFormat !== "audio" && streamFormat !== "sse") return bad('`stream_format` must be "audio" or "sse".', "stream_format");
  return {
    ok: true,
    value: {
      model: b.model,
      input: b.input,
      voice,
      format: format as SpeechFormat,
      speed: b.speed as number | undefined,
      instructions: b.instructions as string | undefined,
      streamFormat,
    },
  };
}

function bad(message: string, param?: string): Parsed {
  return { ok: false, error: errors.invalidRequest(message, param) };
}
