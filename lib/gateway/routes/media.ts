import { handleEmbeddings } from "../embeddings/handle-embeddings";
import { handleImageEdit, handleImageGeneration } from "../images/handle-image-generation";
import { EDIT_BODY_LIMIT } from "../images/image-edit-request";
import type { RouteDef } from "../types";

/** Routes of the media capability. */
export const mediaRoutes: RouteDef[] = [
  // Up to 2048 inputs per request: more room than the default body limit.
  { method: "POST", path: "/v1/embeddings", bodyLimit: 8 * 1024 * 1024, handler: handleEmbeddings },
  { method: "POST", path: "/v1/images/generations", handler: handleImageGeneration },
  // Up to 16 images to edit and a mask; each file's own limit is checked by name (image-edit-request.ts).
  { method: "POST", path: "/v1/images/edits", bodyLimit: EDIT_BODY_LIMIT, handler: handleImageEdit },
];
