import { handleVideoSubmit } from "./submit-video";
import {
  handleDeleteVideo,
  handleGetTask,
  handleGetVideo,
  handleListVideos,
  handleSignedMedia,
  handleVideoContent,
} from "./video-handlers";
import type { RouteDef } from "../types";

/** Room for five 5 MiB images as base64 in JSON (or as multipart files), plus the other fields. */
const VIDEO_BODY_LIMIT = 40 * 1024 * 1024;

/** Routes of the video capability. */
export const videoRoutes: RouteDef[] = [
  { method: "POST", path: "/v1/videos", bodyLimit: VIDEO_BODY_LIMIT, handler: handleVideoSubmit },
  { method: "GET", path: "/v1/videos", handler: handleListVideos },
  { method: "GET", path: "/v1/videos/{id}", handler: handleGetVideo },
  { method: "DELETE", path: "/v1/videos/{id}", handler: handleDeleteVideo },
  { method: "GET", path: "/v1/videos/{id}/content", handler: handleVideoContent },
  { method: "GET", path: "/v1/tasks/{id}", handler: handleGetTask },
  // Signed result URLs (`result.videos[].url`): the signature is the credential.
  { method: "GET", path: "/v1/media/{id}/{file}", auth: false, handler: handleSignedMedia },
];
