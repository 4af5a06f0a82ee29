import type { RouteDef } from "../types";
import { googleRoutes } from "./google";
import { mediaRoutes } from "./media";
import { modelRoutes } from "./models";
import { textRoutes } from "./text";
import { videoRoutes } from "../videos/routes";
import { interactionRoutes } from "../stored-responses/interactions-routes";
import { fileRoutes } from "../files/routes";
import { batchRoutes } from "../batches/routes";
import { audioRoutes } from "../audio/routes";

/** Every public route. Each capability owns one file. */
export function allRoutes(): RouteDef[] {
  return [...modelRoutes, ...textRoutes, ...googleRoutes, ...mediaRoutes, ...videoRoutes, ...interactionRoutes, ...fileRoutes, ...batchRoutes, ...audioRoutes];
}
