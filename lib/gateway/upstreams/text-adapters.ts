/** Text adapters by upstream protocol (the provider registry, registry.ts). */
import type { ModelRoute } from "../model-route";
import { implementation } from "./registry";
import type { TextAdapter } from "./text-types";

export function textAdapterFor(route: ModelRoute): TextAdapter | undefined {
  const a = implementation(route.upstream.protocol, "text");
  return typeof a === "function" ? a(route) : a;
}
