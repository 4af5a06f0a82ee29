/** The video adapter for an upstream protocol. */
import { demoVideo } from "./demo-video";
import { openaiVideo } from "./openai-video";
import type { VideoUpstream } from "./video-types";

export function videoUpstreamFor(protocol: string): VideoUpstream | null {
  if (protocol === "openai-video") return openaiVideo;
  if (protocol === "demo") return demoVideo;
  return null;
}
