/** The video adapter for an upstream protocol (the provider registry, registry.ts). */
import { implementation } from "./registry";
import type { VideoUpstream } from "./video-types";

export function videoUpstreamFor(protocol: string): VideoUpstream | null {
  return implementation(protocol, "video") ?? null;
}
