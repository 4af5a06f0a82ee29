/**
 * The contract of the video upstream adapters (openai-video.ts, demo-video.ts). The job and
 * result shapes belong to the tasks port (lib/tasks/task-upstream.ts), which these satisfy.
 */
import type { ModelPrice, VideoFamily } from "../../../db/schema";
import type { ImageInput, UpstreamVideo, VideoContent, VideoJob } from "../../tasks/task-upstream";
import type { ApiError } from "../errors";

export type { ImageInput, UpstreamVideo, VideoContent, VideoJob };

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

export interface UpstreamFailure {
  ok: false;
  error: ApiError;
  /** 429, 5xx, timeouts, resets: may heal (retry, fail over). */
  retryable: boolean;
}

export type VideoOutcome<T> = { ok: true; value: T } | UpstreamFailure;

/** One upstream protocol's video API. */
export interface VideoUpstream {
  create(route: VideoRoute, job: VideoJob, signal?: AbortSignal): Promise<VideoOutcome<UpstreamVideo>>;
  get(route: VideoRoute, upstreamTaskId: string, signal?: AbortSignal): Promise<VideoOutcome<UpstreamVideo>>;
  content(route: VideoRoute, upstreamTaskId: string, signal?: AbortSignal): Promise<VideoOutcome<VideoContent>>;
  /** Fixed poll interval (demo: 1 s so progress visibly rises); null = TASK_POLL_INTERVAL_MS. */
  pollIntervalMs: number | null;
}
