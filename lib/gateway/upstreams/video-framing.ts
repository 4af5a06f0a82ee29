/**
 * What the vendor video adapters share: the framing a job asks for (aspect ratio and
 * resolution, from `aspect_ratio`/`resolution` or from a `size`), its images by role, and
 * their refusals (400s naming the field, before any money moves).
 */
import type { ImageInput, VideoJob } from "../../values";
import type { Result } from "../../result";

/**
 * A job the upstream can take, with its defaults filled in; or the field it cannot honour (a 400
 * naming it). Declared here, not in video-types.ts, because the public validation (and through it
 * the browser's playground forms) reaches this file, and video-types reaches the database.
 */
export type PreparedJob = Result<VideoJob, JobRefusal>;

/** The field a vendor cannot honour, and why (the 400's param and message). */
export interface JobRefusal {
  param: string;
  message: string;
}

/** The sizes that name a framing: aspect ratio and resolution (null: no standard resolution). */
export const SIZE_FRAMING: Record<string, { aspectRatio: string; resolution: string | null }> = {
  "1280x720": { aspectRatio: "16:9", resolution: "720p" },
  "720x1280": { aspectRatio: "9:16", resolution: "720p" },
  "1920x1080": { aspectRatio: "16:9", resolution: "1080p" },
  "1080x1920": { aspectRatio: "9:16", resolution: "1080p" },
  "1024x1024": { aspectRatio: "1:1", resolution: null },
};

export function framing(job: VideoJob): { aspectRatio: string | null; resolution: string | null } {
  const fromSize = job.size ? SIZE_FRAMING[job.size] : undefined;
  return { aspectRatio: job.aspectRatio ?? fromSize?.aspectRatio ?? null, resolution: job.resolution ?? fromSize?.resolution ?? null };
}

export function refuse(param: string, message: string): PreparedJob {
  return { ok: false, error: { param, message } };
}

/** The images of one role; the unmarked ones are first frames. */
export function imagesOf(job: VideoJob, role: "first_frame" | "last_frame" | "reference"): ImageInput[] {
  return job.images.filter((i) => (i.role ?? "first_frame") === role);
}

/** The public field a role's images come in, for refusals. */
export function fieldOf(role: "first_frame" | "last_frame" | "reference"): string {
  return role === "first_frame" ? "input_reference" : role === "last_frame" ? "last_frame" : "reference_images";
}

/** The image as a data: URL (vendors that take those or http URLs). */
export function imageUrl(img: ImageInput): string {
  return img.kind === "url" ? img.url : `data:${img.mimeType};base64,${img.base64}`;
}
