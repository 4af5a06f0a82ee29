/**
 * Veo's request, as the Gemini API (`gemini-veo`) and Vertex AI (`vertex-veo`) both take it on
 * `models/{m}:predictLongRunning`: one instance (prompt, first frame `image`, `lastFrame`,
 * `referenceImages` as assets) and `parameters` (aspectRatio, resolution, durationSeconds,
 * negativePrompt; Vertex also generateAudio and sampleCount). The two differ in how an image is
 * spelled: the Gemini API's `inlineData {mimeType, data}`, Vertex's `{bytesBase64Encoded, mimeType}`.
 *
 * Veo's rules, refused before any hold: 16:9 or 9:16; 720p or 1080p (720p when none is asked);
 * a last frame needs a first frame; at most 3 reference images, not with a first frame; images
 * as bytes (an upload or a data: URL) — Veo fetches no http URL; on the Gemini API sound cannot
 * be turned off (Veo 3 always speaks there).
 */
import type { ImageInput, VideoJob } from "../../values";
import type { ModelRoute } from "../model-route";
import { fieldOf, framing, imagesOf, refuse } from "./video-framing";
import type { PreparedJob } from "./video-types";

export type VeoDialect = "gemini" | "vertex";

const ASPECTS = ["16:9", "9:16"];
const RESOLUTIONS = ["720p", "1080p"];
const MAX_REFERENCES = 3;

export function prepareVeo(route: ModelRoute, job: VideoJob, dialect: VeoDialect): PreparedJob {
  const { aspectRatio, resolution } = framing(job);
  if (aspectRatio && !ASPECTS.includes(aspectRatio)) return refuse(job.aspectRatio ? "aspect_ratio" : "size", `Veo renders ${ASPECTS.join(" or ")} only.`);
  if (resolution && !RESOLUTIONS.includes(resolution)) return refuse(job.resolution ? "resolution" : "size", `Veo renders ${RESOLUTIONS.join(" or ")} only.`);
  if (/^veo-2/.test(route.upstreamModel) && job.audio) return refuse("generate_audio", "Veo 2 makes silent video.");
  if (dialect === "gemini" && job.audio === false && !/^veo-2/.test(route.upstreamModel)) return refuse("generate_audio", "The Gemini API cannot turn Veo's sound off; omit `generate_audio` or use a Vertex AI upstream.");
  for (const role of ["first_frame", "last_frame", "reference"] as const) {
    if (imagesOf(job, role).some((i) => i.kind === "url")) return refuse(fieldOf(role), "Veo takes images as uploads or data: URLs, not http URLs.");
  }
  const first = imagesOf(job, "first_frame").length;
  if (imagesOf(job, "last_frame").length && !first) return refuse("last_frame", "A last frame needs a first frame (`input_reference`).");
  const refs = imagesOf(job, "reference").length;
  if (refs > MAX_REFERENCES) return refuse("reference_images", `Veo takes at most ${MAX_REFERENCES} reference images.`);
  if (refs && first) return refuse("reference_images", "Veo takes reference images or a first frame, not both.");
  if (job.videoUrl) return refuse("video_url", "Veo extends only videos it made itself; `video_url` is not supported.");
  return { ok: true, value: { ...job, aspectRatio: aspectRatio ?? "16:9", resolution: resolution ?? "720p" } };
}

function image(img: ImageInput, dialect: VeoDialect): Record<string, unknown> {
  if (img.kind === "url") throw new Error("Veo images are bytes (prepareVeo refuses URLs)");
  return dialect === "gemini" ? { inlineData: { mimeType: img.mimeType, data: img.base64 } } : { bytesBase64Encoded: img.base64, mimeType: img.mimeType };
}

/** The predictLongRunning body of a prepared job. */
export function veoBody(model: string, job: VideoJob, dialect: VeoDialect): Record<string, unknown> {
  const instance: Record<string, unknown> = { prompt: job.prompt };
  const [first] = imagesOf(job, "first_frame");
  const [last] = imagesOf(job, "last_frame");
  const refs = imagesOf(job, "reference");
  if (first) instance.image = image(first, dialect);
  if (last) instance.lastFrame = image(last, dialect);
  if (refs.length) instance.referenceImages = refs.map((r) => ({ image: image(r, dialect), referenceType: "asset" }));
  const parameters: Record<string, unknown> = {
    aspectRatio: job.aspectRatio,
    resolution: job.resolution,
    durationSeconds: Number(job.seconds ?? 8),
  };
  if (job.negativePrompt) parameters.negativePrompt = job.negativePrompt;
  if (dialect === "vertex") {
    parameters.sampleCount = 1;
    // Vertex requires generateAudio of Veo 3 models; unsaid is Veo 3's default, with sound. Veo 2 has none.
    if (!/^veo-2/.test(model)) parameters.generateAudio = job.audio ?? true;
    else if (job.audio) throw new Error("prepareVeo refuses sound on Veo 2");
  }
  return { instances: [instance], parameters };
}

/** A finished operation's failure reason: its error, or the safety filter's. */
export function veoFailure(op: { error?: { message?: string | null } | null }, response: { raiMediaFilteredCount?: number | null; raiMediaFilteredReasons?: string[] | null } | undefined): string | null {
  if (op.error) return op.error.message || "Veo failed to generate the video.";
  if (response?.raiMediaFilteredCount) return `Veo's safety filter withheld the video: ${(response.raiMediaFilteredReasons ?? []).join(" ") || "no reason given"}`;
  return null;
}
