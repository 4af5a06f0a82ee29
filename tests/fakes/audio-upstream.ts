/**
 * A fake audio upstream on 127.0.0.1 (random port) speaking two vendors' wire formats, recording
 * every request: OpenAI's `POST /v1/audio/speech` (raw bytes, or `stream_format: "sse"` events
 * for gpt-4o-mini-tts; tts-1 refuses sse as OpenAI does), `/v1/audio/transcriptions` and
 * `/v1/audio/translations` (multipart; whisper-1 answers every format with `usage.type:
 * "duration"`, gpt-4o-transcribe json/text only with token usage and transcript events), and
 * Gemini's `:generateContent` (speech as 24 kHz PCM inlineData, transcription of an audio part,
 * usage per modality). Auth is checked: Bearer for OpenAI, x-goog-api-key for Gemini.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { parseBuffer } from "music-metadata";

export const FAKE_AUDIO_KEY = "sk-upstream-fake-audio";
export const FAKE_GEMINI_AUDIO_KEY = "AIza-fake-audio";

export interface AudioRecorded {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** JSON bodies as parsed; multipart bodies as their text fields plus `file: {name, type, size}`. */
  body: Record<string, unknown>;
}

export interface FakeAudio {
  /** OpenAI base URL (with /v1). */
  baseUrl: string;
  /** Gemini base URL (host only). */
  geminiBaseUrl: string;
  requests: AudioRecorded[];
  /** Raw speech and transcript events: pause between pieces; break raw speech after this many bytes. */
  script: { speechPauseMs: number; breakSpeechAfter?: number };
  /** Raw speech answers and transcript event streams the fake has finished sending. */
  speechSent: number;
  transcriptsSent: number;
  close(): Promise<void>;
}

const SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"];

/** Real MPEG-1 Layer III frames (128 kb/s, 44.1 kHz, silent): 26.12 ms each. */
export function fakeMp3(frames: number): Buffer {
  const frame = Buffer.alloc(417);
  frame.writeUInt32BE(0xfffb9064, 0);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

/** 24 kHz 16-bit mono PCM of a 440 Hz tone. */
export function fakePcm(ms: number): Buffer {
  const n = Math.round(ms * 24);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / 24_000) * 8000), i * 2);
  return b;
}

export function wav(pcm: Buffer, rate = 24_000): Buffer {
  const h = Buffer.alloc(44);
  h.write("RIFF", 0);
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write("WAVEfmt ", 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36);
  h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeAudio(): Promise<FakeAudio> {
  const requests: AudioRecorded[] = [];
  const script: FakeAudio["script"] = { speechPauseMs: 0 };
  const state = { speechSent: 0, transcriptsSent: 0 };
  const server = createServer(async (req, res) => {
    const raw = await readAll(req);
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, body: unknown, type = "application/json") => {
      res.writeHead(status, { "content-type": type });
      res.end(typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body));
    };
    const oaError = (status: number, message: string, param: string | null = null) => send(status, { error: { message, type: "invalid_request_error", param, code: null } });
    const rec: AudioRecorded = { path: url.pathname, headers: req.headers, body: {} };
    requests.push(rec);

    if (url.pathname.startsWith("/v1beta/")) {
      if (req.headers["x-goog-api-key"] !== FAKE_GEMINI_AUDIO_KEY) return send(403, { error: { code: 403, message: "API key not valid.", status: "PERMISSION_DENIED" } });
      const body = JSON.parse(raw.toString("utf8"));
      rec.body = body;
      const parts = body.contents?.[0]?.parts ?? [];
      if (body.generationConfig?.responseModalities?.includes("AUDIO")) {
        const text: string = parts.map((p: { text?: string }) => p.text ?? "").join("");
        if (!body.generationConfig.speechConfig?.voiceConfig?.prebuiltVoiceConfig?.voiceName) return send(400, { error: { code: 400, message: "voice required", status: "INVALID_ARGUMENT" } });
        const ms = text.length * 60;
        const audioTokens = Math.ceil((ms / 1000) * 25);
        const promptTokens = Math.ceil(text.length / 4);
        return send(200, {
          candidates: [{ content: { role: "model", parts: [{ inlineData: { mimeType: "audio/L16;codec=pcm;rate=24000", data: fakePcm(ms).toString("base64") } }] }, finishReason: "STOP", index: 0 }],
          usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: audioTokens, totalTokenCount: promptTokens + audioTokens, promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokens }], candidatesTokensDetails: [{ modality: "AUDIO", tokenCount: audioTokens }] },
          modelVersion: "gemini-2.5-flash-preview-tts",
        });
      }
      const audio = parts.find((p: { inlineData?: { mimeType: string } }) => p.inlineData?.mimeType.startsWith("audio/"))?.inlineData;
      if (!audio) return send(400, { error: { code: 400, message: "no audio", status: "INVALID_ARGUMENT" } });
      const seconds = (await parseBuffer(Buffer.from(audio.data, "base64"), { mimeType: audio.mimeType }, { duration: true })).format.duration ?? 0;
      const audioTokens = Math.ceil(seconds * 32);
      return send(200, {
        candidates: [{ content: { role: "model", parts: [{ text: `Gemini heard ${seconds.toFixed(1)} seconds.` }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: audioTokens + 12, candidatesTokenCount: 7, totalTokenCount: audioTokens + 19, promptTokensDetails: [{ modality: "TEXT", tokenCount: 12 }, { modality: "AUDIO", tokenCount: audioTokens }] },
      });
    }

    if (req.headers.authorization !== `Bearer ${FAKE_AUDIO_KEY}`) return send(401, { error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
    if (url.pathname === "/v1/audio/speech") {
      const b = JSON.parse(raw.toString("utf8"));
      rec.body = b;
      if (!b.model || !b.input || !b.voice) return oaError(400, "model, input and voice are required");
      const format = b.response_format ?? "mp3";
      if (!SPEECH_FORMATS.includes(format)) return oaError(400, "Invalid response_format", "response_format");
      if (b.stream_format === "sse" && b.model.startsWith("tts-1")) return oaError(400, "stream_format 'sse' is not supported for tts-1 models", "stream_format");
      const ms = (b.input.length * 70) / (b.speed ?? 1);
      const audio = format === "mp3" ? fakeMp3(Math.ceil(ms / 26.12)) : format === "pcm" ? fakePcm(ms) : wav(fakePcm(ms));
      if (b.stream_format === "sse") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (let at = 0; at < audio.length; at += 4096) res.write(`data: ${JSON.stringify({ type: "speech.audio.delta", audio: audio.subarray(at, at + 4096).toString("base64") })}\n\n`);
        const usage = { input_tokens: Math.ceil(b.input.length / 4), output_tokens: Math.ceil((ms / 1000) * 21), total_tokens: 0 };
        usage.total_tokens = usage.input_tokens + usage.output_tokens;
        res.end(`data: ${JSON.stringify({ type: "speech.audio.done", usage })}\n\n`);
        return;
      }
      res.writeHead(200, { "content-type": format === "mp3" ? "audio/mpeg" : "application/octet-stream" });
      for (let at = 0; at < audio.length; at += 4096) {
        if (script.breakSpeechAfter !== undefined && at >= script.breakSpeechAfter) return void res.socket?.destroy();
        if (!res.write(audio.subarray(at, at + 4096))) await new Promise((r) => res.once("drain", r));
        if (script.speechPauseMs) await new Promise((r) => setTimeout(r, script.speechPauseMs));
      }
      res.end();
      state.speechSent++;
      return;
    }
    if (url.pathname === "/v1/audio/transcriptions" || url.pathname === "/v1/audio/translations") {
      const form = await new Request("http://x/", { method: "POST", headers: { "content-type": String(req.headers["content-type"]) }, body: new Uint8Array(raw) }).formData();
      const file = form.get("file");
      for (const [k, v] of form.entries()) rec.body[k] = typeof v === "string" ? (k.endsWith("[]") ? form.getAll(k) : v) : { name: v.name, type: v.type, size: v.size };
      if (!file || typeof file === "string") return oaError(400, "file is required", "file");
      const model = String(form.get("model"));
      const format = String(form.get("response_format") ?? "json");
      const translate = url.pathname.endsWith("translations");
      if (translate && model !== "whisper-1") return oaError(400, `model '${model}' is not supported for translations`, "model");
      if (model !== "whisper-1" && !["json", "text"].includes(format)) return oaError(400, `response_format '${format}' is not compatible with model '${model}'. Use 'json' or 'text'.`, "response_format");
      const seconds = (await parseBuffer(Buffer.from(await file.arrayBuffer()), { mimeType: file.type }, { duration: true })).format.duration ?? 0;
      const text = `${translate ? "Translated" : "Heard"} ${seconds.toFixed(1)} seconds of ${file.name}.`;
      if (model === "whisper-1") {
        const usage = { type: "duration", seconds: Math.ceil(seconds) };
        if (format === "verbose_json")
          return send(200, { task: translate ? "translate" : "transcribe", language: "english", duration: seconds, text, segments: [{ id: 0, seek: 0, start: 0, end: seconds / 2, text: " First half." }, { id: 1, seek: 0, start: seconds / 2, end: seconds, text: " Second half." }], usage });
        if (format === "json") return send(200, { text, usage });
        return oaError(400, "the fake answers json and verbose_json only (the gateway asks for nothing else)", "response_format");
      }
      const usage = { type: "tokens", input_tokens: Math.ceil(seconds * 10) + 5, input_token_details: { text_tokens: 5, audio_tokens: Math.ceil(seconds * 10) }, output_tokens: 9, total_tokens: Math.ceil(seconds * 10) + 14 };
      if (form.get("stream") === "true") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const w of text.split(" ")) {
          res.write(`data: ${JSON.stringify({ type: "transcript.text.delta", delta: `${w} ` })}\n\n`);
          if (script.speechPauseMs) await new Promise((r) => setTimeout(r, script.speechPauseMs));
        }
        res.end(`data: ${JSON.stringify({ type: "transcript.text.done", text, usage })}\n\n`);
        state.transcriptsSent++;
        return;
      }
      return send(200, { text, usage });
    }
    send(404, { error: { message: "not found" } });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    geminiBaseUrl: `http://127.0.0.1:${port}`,
    requests,
    script,
    get speechSent() {
      return state.speechSent;
    },
    get transcriptsSent() {
      return state.transcriptsSent;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
