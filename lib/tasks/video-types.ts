/**
 * Shapes shared by the video task code and the video upstream adapters
 * (lib/gateway/upstreams/openai-video.ts, demo-video.ts).
 */
import type { Readable } from "node:stream";
import type { ModelPrice, TaskStatus, VideoFamily } from "../../db/schema";
import type { ApiError } from "../gateway/errors";

/** One (public model, upstream) route of a video model, as the catalog gives it. */
export interface VideoRoute {
  rowId: string;
  modelId: string;
  family: VideoFamily | null;
  upstreamModel: string;
  /** Integer micro-USD: perVideo or perSecond. */
  price: ModelPrice;
  upstream: {
    id: string;
    protocol: string;
    /** openai-video: includes `/v1`. */
    baseUrl: string;
    /** Decrypted; never log it. */
    apiKey: string | null;
    timeoutMs: number | null;
  };
}

/** An image input: a URL the upstream fetches, or bytes uploaded with the request. */
export type ImageInput = { kind: "url"; url: string } | { kind: "bytes"; base64: string; mimeType: string; filename: string };

/** What a task asks its upstream for (stored in tasks.params until the upstream has it). */
export interface VideoJob {
  prompt: string;
  /** null for extend (the source video's duration). */
  seconds: string | null;
  /** First family: `size`; second and third: `aspectRatio`. */
  size: string | null;
  aspectRatio: string | null;
  images: ImageInput[];
  videoUrl: string | null;
}

/** The upstream's view of one task. */
export interface UpstreamVideo {
  id: string;
  status: TaskStatus;
  /** 0–100. */
  progress: number;
  /** The real duration when the upstream reports one (duration-priced families settle on it). */
  seconds: string | null;
  /** Failure reason when status is failed. */
  error: string | null;
}

export interface UpstreamFailure {
  ok: false;
  error: ApiError;
  /** 429, 5xx, timeouts, resets: may heal (retry, fail over). */
  retryable: boolean;
}

export type VideoOutcome<T> = { ok: true; value: T } | UpstreamFailure;

export interface VideoContent {
  body: Readable;
  contentType: string;
}

/** One upstream protocol's video API. */
export interface VideoUpstream {
  create(route: VideoRoute, job: VideoJob, signal?: AbortSignal): Promise<VideoOutcome<UpstreamVideo>>;
  get(route: VideoRoute, upstreamTaskId: string, signal?: AbortSignal): Promise<VideoOutcome<UpstreamVideo>>;
  content(route: VideoRoute, upstreamTaskId: string, signal?: AbortSignal): Promise<VideoOutcome<VideoContent>>;
  /** Fixed poll interval (demo: 1 s so progress visibly rises); null = TASK_POLL_INTERVAL_MS. */
  pollIntervalMs: number | null;
}
