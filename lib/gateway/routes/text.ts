import type { RouteDef } from "../types";

/** Routes of the text capability. */
export const textRoutes: RouteDef[] = [];
