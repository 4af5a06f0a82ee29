import type { RouteDef } from "../types";
import { googleRoutes } from "./google";
import { mediaRoutes } from "./media";
import { modelRoutes } from "./models";
import { textRoutes } from "./text";
import { videoRoutes } from "../videos/routes";

/** Every public route. Each capability owns one file. */
export function allRoutes(): RouteDef[] {
  return [...modelRoutes, ...textRoutes, ...googleRoutes, ...mediaRoutes, ...videoRoutes];
}
