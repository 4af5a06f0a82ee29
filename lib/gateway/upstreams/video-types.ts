/**
 * The contract of the video upstream adapters (openai-video.ts, demo-video.ts). The job and
 * result shapes belong to the tasks port (lib/tasks/task-upstream.ts), which these satisfy.
 */
import type { ImageInput, UpstreamVideo, VideoContent, VideoJob } from "../../tasks/task-upstream";
import type { Outcome } from "../errors";
import type { ModelRoute } from "../model-route";

export type { ImageInput, UpstreamVideo, VideoContent, VideoJob };

import type { PreparedJob } from "./video-framing";
export type { PreparedJob };

/** One upstream protocol's video API. */
export interface VideoUpstream {
  /**
   * The vendor's own rules beyond the family's (resolutions, sound, image roles), checked before
   * any money moves, and its defaults (the resolution it renders when none is asked) so the hold
   * and the charge price what it will make. Absent: the job goes as it is.
   */
  prepare?(route: ModelRoute, job: VideoJob): PreparedJob;
  create(route: ModelRoute, job: VideoJob, signal?: AbortSignal): Promise<Outcome<UpstreamVideo>>;
  get(route: ModelRoute, upstreamTaskId: string, signal?: AbortSignal): Promise<Outcome<UpstreamVideo>>;
  content(route: ModelRoute, upstreamTaskId: string, signal?: AbortSignal): Promise<Outcome<VideoContent>>;
  /** Fixed poll interval (demo: 1 s so progress visibly rises); null = TASK_POLL_INTERVAL_MS. */
  pollIntervalMs: number | null;
}
