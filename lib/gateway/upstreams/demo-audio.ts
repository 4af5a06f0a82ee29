/**
 * The demo upstream's audio models, offline: `demo-tts` speaks a real, decodable tone melody
 * (one short note per word, its pitch from the word), as WAV or headerless PCM (24 kHz 16-bit
 * mono, like OpenAI's `pcm`), or as MP3 of the same length (silent: there is no encoder in
 * code, media/mp3.ts); `demo-stt` answers a transcript that states what it heard (the
 * duration, in segments of 5 s). Same routing, holds and settlement as a real upstream.
 */
import { createHash } from "node:crypto";
import { errors, type Outcome } from "../errors";
import type { SpeechRequest, SpeechStream, Transcript, TranscriptionRequest } from "../media/audio-types";
import { silentMp3 } from "../media/mp3";
import { PCM_SAMPLE_RATE, pcmDurationMs, pcmToWav } from "../media/wav";

/** Per character of a word, at speed 1 (about 14 characters a second, like speech). */
const MS_PER_CHAR = 70;
const GAP_MS = 60;

export function demoSpeech(req: SpeechRequest): Outcome<SpeechStream> {
  if (req.format !== "wav" && req.format !== "pcm" && req.format !== "mp3")
    return { ok: false, error: errors.invalidRequest('The demo speech model makes MP3, WAV or PCM audio: `response_format` must be "mp3", "wav" or "pcm".', "response_format"), retryable: false };
  const pcm = demoPcm(req.input, req.speed ?? 1);
  const audio = req.format === "wav" ? pcmToWav(pcm, PCM_SAMPLE_RATE) : req.format === "mp3" ? silentMp3(pcmDurationMs(pcm.length)) : pcm;
  // In pieces of about a tenth of a second, as a real upstream streams them.
  const piece = req.format === "mp3" ? 4800 : PCM_SAMPLE_RATE / 5;
  return { ok: true, value: { format: req.format, audio: Array.from({ length: Math.ceil(audio.length / piece) }, (_, i) => audio.subarray(i * piece, (i + 1) * piece)), usage: () => null } };
}

/** One sine note per word (pitch from the word's hash, 220–880 Hz), with soft edges and short gaps. */
export function demoPcm(input: string, speed: number): Buffer {
  const words = input.match(/\S+/g) ?? [input];
  const samples: number[] = [];
  const perMs = PCM_SAMPLE_RATE / 1000;
  for (const word of words) {
    const hz = 220 + (createHash("sha256").update(word).digest().readUInt16LE(0) % 660);
    const n = Math.round(((word.length * MS_PER_CHAR) / speed) * perMs);
    for (let i = 0; i < n; i++) {
      const edge = Math.min(1, i / (perMs * 10), (n - i) / (perMs * 10));
      samples.push(Math.round(Math.sin((2 * Math.PI * hz * i) / PCM_SAMPLE_RATE) * 9000 * edge));
    }
    for (let i = 0; i < Math.round((GAP_MS / speed) * perMs); i++) samples.push(0);
  }
  const pcm = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => pcm.writeInt16LE(s, i * 2));
  return pcm;
}

export function demoTranscription(req: TranscriptionRequest): Outcome<Transcript> {
  if (req.granularities.includes("word"))
    return { ok: false, error: errors.invalidRequest("The demo transcription model gives segment timestamps only, not words.", "timestamp_granularities[]"), retryable: false };
  const total = req.file.durationMs / 1000;
  const segments = [];
  for (let start = 0, i = 1; start < total; start += 5, i++)
    segments.push({ start, end: Math.min(total, start + 5), text: ` Demo ${req.translate ? "translation" : "transcript"}, part ${i}.` });
  const text = `Demo ${req.translate ? "translation" : "transcript"} of ${total.toFixed(1)} seconds of audio (${req.file.filename}).`;
  return { ok: true, value: { text, language: "english", segments, usage: null } };
}
