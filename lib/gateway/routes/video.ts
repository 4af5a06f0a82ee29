import type { RouteDef } from "../types";

/** Routes of the video capability. */
export const videoRoutes: RouteDef[] = [];
