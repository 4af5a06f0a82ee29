/**
 * The built-in demo video upstream: tasks move queued → in_progress → completed over a few
 * seconds with progress rising, and end with a real playable H.264 MP4 (assets/demo-video,
 * made once by scripts/make-demo-videos.sh). A prompt containing `[fail]` ends failed.
 *
 * Stateless on purpose: the upstream task id carries its creation time, size and fate, so a
 * demo task survives a server restart exactly like a task at a real upstream would.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { errors, type UpstreamFailure } from "../errors";
import type { UpstreamVideo, VideoJob, VideoUpstream } from "./video-types";

export const DEMO_SIZES = ["1280x720", "1920x1080", "720x1280", "1024x1024"] as const;
/** Waiting before it "starts", and the time from start to the finished video. */
export const DEMO_QUEUE_MS = 1_000;
export const DEMO_RUN_MS = 5_000;
const FAIL_AT_MS = DEMO_QUEUE_MS + 2_000;

export function demoAssetPath(size: string): string {
  const s = (DEMO_SIZES as readonly string[]).includes(size) ? size : "1280x720";
  return path.resolve(process.cwd(), "assets/demo-video", `${s}.mp4`);
}

interface DemoId {
  createdMs: number;
  fail: boolean;
  size: string;
}

function encodeId(d: DemoId): string {
  return `demo_${d.createdMs.toString(36)}_${d.fail ? "f" : "o"}_${d.size}_${randomBytes(4).toString("hex")}`;
}

function decodeId(id: string): DemoId | null {
  const m = /^demo_([0-9a-z]+)_([fo])_(\d+x\d+)_[0-9a-f]+$/.exec(id);
  return m ? { createdMs: parseInt(m[1]!, 36), fail: m[2] === "f", size: m[3]! } : null;
}

export function demoState(id: string, now = Date.now()): UpstreamVideo | null {
  const d = decodeId(id);
  if (!d) return null;
  const elapsed = now - d.createdMs;
  const base = { id, seconds: "10", error: null };
  if (d.fail && elapsed >= FAIL_AT_MS) {
    return { ...base, status: "failed", progress: 0, error: "The demo upstream failed this task because the prompt asked for it ([fail])." };
  }
  if (elapsed < DEMO_QUEUE_MS) return { ...base, status: "queued", progress: 0 };
  if (elapsed < DEMO_QUEUE_MS + DEMO_RUN_MS) {
    return { ...base, status: "in_progress", progress: Math.min(99, Math.max(1, Math.floor(((elapsed - DEMO_QUEUE_MS) / DEMO_RUN_MS) * 100))) };
  }
  return { ...base, status: "completed", progress: 100 };
}

function notFound(): UpstreamFailure {
  return { ok: false, error: errors.upstream("The demo upstream does not know this task.", 404), retryable: false };
}

export const demoVideo: VideoUpstream = {
  pollIntervalMs: 1_000,

  async create(_route, job: VideoJob) {
    const id = encodeId({ createdMs: Date.now(), fail: job.prompt.includes("[fail]"), size: job.size ?? "1280x720" });
    return { ok: true, value: demoState(id)! };
  },

  async get(_route, upstreamTaskId) {
    const s = demoState(upstreamTaskId);
    return s ? { ok: true, value: s } : notFound();
  },

  async content(_route, upstreamTaskId) {
    const s = demoState(upstreamTaskId);
    if (!s) return notFound();
    if (s.status !== "completed") return { ok: false, error: errors.upstream("The demo video is not ready.", 409), retryable: true };
    const file = demoAssetPath(decodeId(upstreamTaskId)!.size);
    if (!fs.existsSync(file)) return { ok: false, error: errors.upstream("The demo video asset is missing."), retryable: false };
    return { ok: true, value: { body: fs.createReadStream(file), contentType: "video/mp4" } };
  },
};
