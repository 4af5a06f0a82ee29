/**
 * `POST /v1/audio/transcriptions` and `/v1/audio/translations` bodies: multipart/form-data as
 * the official SDKs send them. The file is at most 25 MB (a 413 naming the limit), and its
 * duration is decoded here, before any hold: the hold and the charge are priced on it.
 */
import { errors, type ApiError, type RequestRefusal } from "../errors";
import { audioDurationMs } from "./audio-duration";
import { TRANSCRIPT_FORMATS, type TranscriptFormat, type TranscriptionRequest } from "../media/audio-types";
import type { Ok } from "../../result";

/** OpenAI's limit for an uploaded audio file. */
export const MAX_AUDIO_FILE_BYTES = 25 * 1024 * 1024;
/** The route's body limit: the file and the other fields around it. */
export const AUDIO_BODY_LIMIT = MAX_AUDIO_FILE_BYTES + 1024 * 1024;

const PASSED = new Set(["chunking_strategy", "include[]", "include", "known_speaker_names[]", "known_speaker_references[]"]);
const KNOWN = new Set(["file", "model", "language", "prompt", "response_format", "temperature", "timestamp_granularities[]", "timestamp_granularities", "stream", ...PASSED]);

type Parsed = Ok<TranscriptionRequest> | RequestRefusal;

export async function parseTranscriptionRequest(body: Buffer, contentType: string | undefined, translate: boolean): Promise<Parsed> {
  if (!contentType?.toLowerCase().startsWith("multipart/form-data")) return bad("The request body must be multipart/form-data with the audio `file`.", null, "file");
  let form: FormData;
  try {
    form = await new Request("http://localhost/", { method: "POST", headers: { "content-type": contentType }, body: new Uint8Array(body) }).formData();
  } catch {
    return bad("Request body is not valid multipart/form-data.", null);
  }
  const text = (k: string) => {
    const v = form.get(k);
    return typeof v === "string" ? v : undefined;
  };
  const model = text("model") ?? null;
  for (const k of form.keys()) if (!KNOWN.has(k) || (translate && (k === "stream" || k === "language" || PASSED.has(k) || k.startsWith("timestamp_granularities")))) return bad(`Unknown parameter \`${k}\`.`, model, k);
  if (!model) return bad("`model` is required.", null, "model");
  const file = form.get("file");
  if (!file || typeof file === "string") return bad("`file` is required: the audio to transcribe, as a file part.", model, "file");
  if (file.size > MAX_AUDIO_FILE_BYTES)
    return { ok: false, model, error: { ...errors.payloadTooLarge(MAX_AUDIO_FILE_BYTES), message: `The audio \`file\` is ${file.size} bytes; the limit is 25 MB (${MAX_AUDIO_FILE_BYTES} bytes).`, param: "file" } };
  const format = text("response_format") ?? "json";
  if (!TRANSCRIPT_FORMATS.includes(format as TranscriptFormat)) return bad(`\`response_format\` must be one of ${TRANSCRIPT_FORMATS.join(", ")}.`, model, "response_format");
  const temperature = text("temperature");
  if (temperature !== undefined && !(Number(temperature) >= 0 && Number(temperature) <= 1)) return bad("`temperature` must be a number from 0 to 1.", model, "temperature");
  const granularities = [...form.getAll("timestamp_granularities[]"), ...form.getAll("timestamp_granularities")].map(String);
  if (granularities.some((g) => g !== "segment" && g !== "word")) return bad('`timestamp_granularities[]` takes "segment" and "word".', model, "timestamp_granularities[]");
  if (granularities.length && format !== "verbose_json") return bad("`timestamp_granularities[]` needs `response_format` verbose_json.", model, "timestamp_granularities[]");
  const stream = text("stream");
  if (stream !== undefined && stream !== "true" && stream !== "false") return bad("`stream` must be true or false.", model, "stream");
  if (stream === "true" && format !== "json" && format !== "text") return bad("Streamed transcripts are json or text: `stream` cannot be used with this `response_format`.", model, "stream");

  const bytes = Buffer.from(await file.arrayBuffer());
  const mimeType = file.type || "application/octet-stream";
  const durationMs = await audioDurationMs(bytes, file.type || undefined);
  if (durationMs === null || durationMs <= 0)
    return bad("The `file` is not audio whose duration can be read (mp3, mp4, mpeg, mpga, m4a, wav, webm, flac, ogg).", model, "file");
  const extra: Record<string, string | string[]> = {};
  for (const k of PASSED) {
    const all = form.getAll(k).filter((v): v is string => typeof v === "string");
    if (all.length) extra[k] = k.endsWith("[]") ? all : all[0]!;
  }
  return {
    ok: true,
    value: {
      model,
      file: { bytes, filename: file.name || "audio", mimeType, durationMs },
      translate,
      format: format as TranscriptFormat,
      language: text("language"),
      prompt: text("prompt"),
      temperature: temperature === undefined ? undefined : Number(temperature),
      granularities: granularities as ("segment" | "word")[],
      stream: stream === "true",
      extra,
    },
  };
}

function bad(message: string, model: string | null, param?: string): Parsed {
  return { ok: false, model, error: errors.invalidRequest(message, param) };
}
