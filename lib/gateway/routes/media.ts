import { handleEmbeddings } from "../embeddings/handle-embeddings";
import { handleImageGeneration } from "../images/handle-image-generation";
import type { RouteDef } from "../types";

/** Routes of the media capability. */
export const mediaRoutes: RouteDef[] = [
  // Up to 2048 inputs per request: more room than the default body limit.
  { method: "POST", path: "/v1/embeddings", bodyLimit: 8 * 1024 * 1024, handler: handleEmbeddings },
  { method: "POST", path: "/v1/images/generations", handler: handleImageGeneration },
];
