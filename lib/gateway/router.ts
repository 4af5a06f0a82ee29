/** Matches a method and path against RouteDef patterns (`{name}` = part of one path segment). */
import type { RouteDef } from "./types";

interface Compiled {
  def: RouteDef;
  regex: RegExp;
  names: string[];
}

export type Match =
  | { kind: "found"; def: RouteDef; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: string[] }
  | { kind: "not_found" };

function compile(def: RouteDef): Compiled {
  const names: string[] = [];
  const source = def.path
    .split(/(\{[a-zA-Z_]+\})/)
    .map((part) => {
      const m = /^\{([a-zA-Z_]+)\}$/.exec(part);
      if (m) {
        names.push(m[1]!);
        return "([^/]+?)";
      }
      return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
    })
    .join("");
  return { def, regex: new RegExp(`^${source}/?$`), names };
}

export class Router {
  private readonly compiled: Compiled[];
  /** Exact paths first: most public routes have no parameters, and a Map lookup is cheaper. */
  private readonly exact = new Map<string, RouteDef[]>();

  constructor(defs: RouteDef[]) {
    this.compiled = defs.filter((d) => d.path.includes("{")).map(compile);
    for (const d of defs) {
      if (d.path.includes("{")) continue;
      const list = this.exact.get(d.path) ?? [];
      list.push(d);
      this.exact.set(d.path, list);
    }
  }

  match(method: string, pathname: string): Match {
    const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
    const allowed: string[] = [];
    const exact = this.exact.get(path);
    if (exact) {
      for (const def of exact) {
        if (def.method === method) return { kind: "found", def, params: {} };
        allowed.push(def.method);
      }
    }
    for (const c of this.compiled) {
      const m = c.regex.exec(path);
      if (!m) continue;
      if (c.def.method !== method) {
        allowed.push(c.def.method);
        continue;
      }
      const params: Record<string, string> = {};
      try {
        c.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1]!)));
      } catch {
        continue; // malformed %-escape: no match
      }
      return { kind: "found", def: c.def, params };
    }
    return allowed.length ? { kind: "method_not_allowed", allowed: [...new Set(allowed)] } : { kind: "not_found" };
  }
}
