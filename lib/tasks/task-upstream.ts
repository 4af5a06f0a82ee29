/**
 * What the task worker needs from a video upstream: the port lib/tasks calls down through.
 * The gateway implements it (lib/gateway/videos/task-upstream.ts binds a task to its upstream
 * adapter) and lib/runtime hands it to the worker, so lib/tasks imports nothing from the gateway.
 */
import type { Readable } from "node:stream";
import type { DbOrTx } from "../../db/client";
import type { ModelPrice, TaskStatus } from "../../db/schema";
import type { TaskRow } from "./task-render";
import type { ImageInput, VideoJob } from "../values";
import type { Err, Ok } from "../result";
export type { ImageInput, VideoJob };

/** The upstream's view of one task. */
export interface UpstreamVideo {
  id: string;
  status: TaskStatus;
  /** 0–100. */
  progress: number;
  /** The real duration when the upstream reports one (duration-priced families settle on it). */
  seconds: string | null;
  /** The resolution it produced (`720p`), when the upstream reports one: settlement prices it. */
  resolution?: string | null;
  /** Failure reason when status is failed. */
  error: string | null;
}

export interface VideoContent {
  body: Readable;
  contentType: string;
}

/** The part of an upstream failure the worker acts on (the gateway's ApiError has more). */
export interface TaskUpstreamFailure extends Err<{ status: number; message: string }> {
  retryable: boolean;
}

export type TaskUpstreamOutcome<T> = Ok<T> | TaskUpstreamFailure;

/** One task bound to the upstream it runs on. */
export interface TaskUpstream {
  upstreamId: string;
  modelRowId: string;
  upstreamModel: string;
  /** The model's current price (a task's own params.price wins). */
  price: ModelPrice;
  /** Fixed poll interval (demo: 1 s); null = TASK_POLL_INTERVAL_MS. */
  pollIntervalMs: number | null;
  create(job: VideoJob, signal?: AbortSignal): Promise<TaskUpstreamOutcome<UpstreamVideo>>;
  get(upstreamTaskId: string, signal?: AbortSignal): Promise<TaskUpstreamOutcome<UpstreamVideo>>;
  content(upstreamTaskId: string, signal?: AbortSignal): Promise<TaskUpstreamOutcome<VideoContent>>;
}

/** Loads a task's upstream by the ids stored on it; null when it is gone or unusable. */
export type TaskUpstreamLoader = (db: DbOrTx, t: TaskRow) => Promise<TaskUpstream | null>;
