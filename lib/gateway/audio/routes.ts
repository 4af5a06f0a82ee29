import type { RouteDef } from "../types";
import { handleSpeech } from "./handle-speech";
import { handleTranscription, handleTranslation } from "./handle-transcription";
import { AUDIO_BODY_LIMIT } from "./transcription-request";

/** Routes of the audio capability (docs/audio.md). */
export const audioRoutes: RouteDef[] = [
  { method: "POST", path: "/v1/audio/speech", handler: handleSpeech },
  // A 25 MB file and its form fields; the file's own limit is checked by name (transcription-request.ts).
  { method: "POST", path: "/v1/audio/transcriptions", bodyLimit: AUDIO_BODY_LIMIT, handler: handleTranscription },
  { method: "POST", path: "/v1/audio/translations", bodyLimit: AUDIO_BODY_LIMIT, handler: handleTranslation },
];
