import type { RouteDef } from "../types";

/** Routes of the media capability. */
export const mediaRoutes: RouteDef[] = [];
