/** Sends a speech or transcription request to one route's upstream, whichever protocol it speaks. */
import type { SpeechRequest, SpeechStream, Transcript, TranscriptionRequest, TranscriptStream } from "../media/audio-types";
import { errors, type Outcome } from "../errors";
import { implementation } from "./registry";
import type { ModelRoute } from "../model-route";
import { openaiTranscriptEvents, wholeTranscript } from "./openai-audio";

/** Long files take a while to transcribe, long inputs to speak. */
export const DEFAULT_AUDIO_TIMEOUT_MS = 300_000;

export function audioTimeoutMs(route: ModelRoute): number {
  return route.upstream.timeoutMs ?? DEFAULT_AUDIO_TIMEOUT_MS;
}

export function speechWithUpstream(route: ModelRoute, req: SpeechRequest, signal: AbortSignal): Promise<Outcome<SpeechStream>> {
  const opts = { signal, timeoutMs: audioTimeoutMs(route) };
  const call = implementation(route.upstream.protocol, "speech");
  return call ? call(route, req, opts) : Promise.resolve(unsupported());
}

export function transcribeWithUpstream(route: ModelRoute, req: TranscriptionRequest, signal: AbortSignal): Promise<Outcome<Transcript>> {
  const opts = { signal, timeoutMs: audioTimeoutMs(route) };
  const call = implementation(route.upstream.protocol, "transcription");
  return call ? call(route, req, opts) : Promise.resolve(unsupported());
}

/** Transcript events: relayed live from OpenAI upstreams; the others' finished transcript as events. */
export async function transcriptEventsWithUpstream(route: ModelRoute, req: TranscriptionRequest, signal: AbortSignal): Promise<Outcome<TranscriptStream>> {
  if (route.upstream.protocol === "openai") return openaiTranscriptEvents(route, req, { signal, timeoutMs: audioTimeoutMs(route) });
  const t = await transcribeWithUpstream(route, req, signal);
  return t.ok ? { ok: true, value: wholeTranscript(t.value) } : t;
}

function unsupported(): Outcome<never> {
  return { ok: false, error: errors.upstream("This model's upstream does not serve audio."), retryable: false, failover: true };
}
