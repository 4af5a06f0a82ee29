/**
 * The provider registry's implementation half: for each upstream protocol declared in
 * lib/values.ts PROVIDERS, the adapter of every kind it serves. The type makes every declared
 * protocol present here, and a unit test (registry.test.ts) that every declared kind has its
 * adapter and no adapter serves an undeclared kind. The capabilities' dispatchers
 * (textAdapterFor, embedWithUpstream, generateImageWithUpstream, videoUpstreamFor, the audio
 * ones) read this table; no route says `if (protocol === …)`.
 */
import type { SpeechRequest, SpeechStream, Transcript, TranscriptionRequest } from "../media/audio-types";
import type { EmbeddingRequest } from "../media/embedding-request";
import type { EmbeddingResult } from "../media/embedding-result";
import type { Outcome } from "../errors";
import type { ImagePlan } from "../media/image-plan";
import type { ImageRequest } from "../media/image-request";
import type { ImageResult, ImageStream } from "../media/image-result";
import type { ModelRoute } from "../model-route";
import type { ModelKind, UpstreamProtocol } from "../../values";
import { anthropicMessages } from "./anthropic-messages";
import { bflImage, bflImageRefusal } from "./bfl-image";
import { azureEmbed, azureImage, azureImageStream, azureTextAdapter } from "./azure-openai";
import { bedrockEmbed } from "./bedrock-embed";
import { bedrockTextAdapter } from "./bedrock-invoke";
import { demoChat } from "./demo-chat";
import { demoEmbed } from "./demo-embed";
import { demoImage, demoImageStream } from "./demo-image";
import { demoSpeech, demoTranscription } from "./demo-audio";
import { demoVideo } from "./demo-video";
import { geminiSpeech, geminiTranscription } from "./gemini-audio";
import { geminiEmbed } from "./gemini-embed";
import { geminiGenerate } from "./gemini-generate";
import { geminiImage, geminiImageRefusal, imagenImage, imagenRefusal } from "./gemini-image";
import { geminiInteractions } from "./gemini-interactions";
import { geminiVeo } from "./gemini-veo";
import { klingVideo } from "./kling-video";
import { openaiSpeech, openaiTranscription } from "./openai-audio";
import { openaiChat } from "./openai-chat";
import { openaiEmbed } from "./openai-embed";
import { openaiImage, openaiImageStream } from "./openai-image";
import { openaiResponses } from "./openai-responses";
import { openaiVideo } from "./openai-video";
import { seedanceVideo } from "./seedance-video";
import type { TextAdapter } from "./text-types";
import { vertexTextAdapter } from "./vertex";
import { vertexVeo } from "./vertex-veo";
import type { VideoUpstream } from "./video-types";
import { anthropicProbe, azureProbe, bedrockProbe, bflProbe, demoProbe, geminiProbe, klingProbe, openaiProbe, seedanceProbe, vertexProbe, type ProbeFn } from "./connection-probes";

/** One call's signal and timeout. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
}

/** What one protocol implements: its "Test connection", and a member per model kind it serves (lib/values.ts ModelKind). */
export interface ProviderImplementation {
  /** The admin's "Test connection" (connection-probes.ts). */
  probe: ProbeFn;
  /** A text adapter, or one chosen per route (an upstream's settings or a model's publisher). */
  text?: TextAdapter | ((route: ModelRoute) => TextAdapter);
  embedding?: (route: ModelRoute, req: EmbeddingRequest, opts: CallOptions) => Promise<Outcome<EmbeddingResult>>;
  image?: (route: ModelRoute, req: ImageRequest, plan: ImagePlan, opts: CallOptions) => Promise<Outcome<ImageResult>>;
  /** Images streamed with partial images (`stream: true`); absent: the protocol answers only whole images. */
  imageStream?: (route: ModelRoute, req: ImageRequest, plan: ImagePlan, opts: CallOptions) => Promise<Outcome<ImageStream>>;
  /** What the protocol cannot take of an image request, asked before the hold (a 400 naming the field). */
  imageRefusal?: (route: ModelRoute, req: ImageRequest) => { message: string; param: string } | null;
  video?: VideoUpstream;
  speech?: (route: ModelRoute, req: SpeechRequest, opts: Required<CallOptions>) => Promise<Outcome<SpeechStream>>;
  transcription?: (route: ModelRoute, req: TranscriptionRequest, opts: Required<CallOptions>) => Promise<Outcome<Transcript>>;
}

export const PROVIDER_IMPLEMENTATIONS: { readonly [P in UpstreamProtocol]: ProviderImplementation } = {
  openai: { probe: openaiProbe, text: openaiChat, embedding: openaiEmbed, image: openaiImage, imageStream: openaiImageStream, speech: openaiSpeech, transcription: openaiTranscription },
  "openai-responses": { probe: openaiProbe, text: openaiResponses },
  anthropic: { probe: anthropicProbe, text: anthropicMessages },
  gemini: {
    probe: geminiProbe,
    text: geminiGenerate,
    embedding: geminiEmbed,
    // Imagen answers on :predict; the Gemini image models on :generateContent.
    image: (r, req, plan, opts) => (isImagen(r) ? imagenImage : geminiImage)(r, req, plan, opts),
    imageRefusal: (r, req) => (isImagen(r) ? imagenRefusal(req) : geminiImageRefusal(req)),
    speech: geminiSpeech,
    transcription: geminiTranscription,
  },
  "gemini-interactions": { probe: geminiProbe, text: geminiInteractions },
  "openai-video": { probe: openaiProbe, video: openaiVideo },
  // Chat Completions or the Responses API, as the upstream is set.
  "azure-openai": { probe: azureProbe, text: (r) => azureTextAdapter(r.upstream), embedding: azureEmbed, image: azureImage, imageStream: azureImageStream },
  // Converse, or InvokeModel with Anthropic's body for Claude when the upstream says so.
  bedrock: { probe: bedrockProbe, text: bedrockTextAdapter, embedding: bedrockEmbed },
  // Gemini or Claude, by the model's publisher.
  vertex: { probe: vertexProbe, text: vertexTextAdapter },
  "gemini-veo": { probe: geminiProbe, video: geminiVeo },
  "vertex-veo": { probe: vertexProbe, video: vertexVeo },
  kling: { probe: klingProbe, video: klingVideo },
  seedance: { probe: seedanceProbe, video: seedanceVideo },
  // Asynchronous (submit, poll, download) behind the synchronous image endpoints.
  bfl: { probe: bflProbe, image: bflImage, imageRefusal: bflImageRefusal },
  demo: {
    probe: demoProbe,
    text: demoChat,
    embedding: async (_r, req) => demoEmbed(req),
    image: async (_r, req, plan) => demoImage(req, plan),
    imageStream: async (_r, req, plan) => demoImageStream(req, plan),
    video: demoVideo,
    speech: async (_r, req) => demoSpeech(req),
    transcription: async (_r, req) => demoTranscription(req),
  },
};

const isImagen = (r: ModelRoute) => /^imagen/i.test(r.upstreamModel);

/** The implementation of `kind` for this route's protocol, if it has one. */
export function implementation<K extends keyof ProviderImplementation>(protocol: string, kind: K): ProviderImplementation[K] | undefined {
  return (PROVIDER_IMPLEMENTATIONS as Record<string, ProviderImplementation | undefined>)[protocol]?.[kind];
}
