import { describe, expect, it } from "vitest";
import { Router } from "./router";
import type { RouteDef } from "./types";

const def = (method: RouteDef["method"], path: string): RouteDef => ({ method, path, handler: async () => ({ status: 200, headers: {}, body: null }) });

describe("Router", () => {
  const r = new Router([
    def("GET", "/v1/models"),
    def("GET", "/v1/models/{model}"),
    def("POST", "/v1/chat/completions"),
    def("POST", "/v1beta/models/{model}:generateContent"),
    def("POST", "/v1beta/models/{model}:streamGenerateContent"),
    def("GET", "/v1/videos/{id}/content"),
  ]);

  it("matches exact and parameterised paths, with a trailing slash", () => {
    expect(r.match("GET", "/v1/models")).toMatchObject({ kind: "found" });
    expect(r.match("GET", "/v1/models/")).toMatchObject({ kind: "found" });
    expect(r.match("GET", "/v1/models/demo-chat")).toMatchObject({ kind: "found", params: { model: "demo-chat" } });
    expect(r.match("POST", "/v1beta/models/gem-1.5:generateContent")).toMatchObject({ params: { model: "gem-1.5" } });
    expect(r.match("POST", "/v1beta/models/gem:streamGenerateContent")).toMatchObject({ kind: "found", params: { model: "gem" } });
    expect(r.match("GET", "/v1/videos/task_1/content")).toMatchObject({ params: { id: "task_1" } });
  });

  it("decodes parameters and refuses malformed escapes", () => {
    expect(r.match("GET", "/v1/models/a%2Fb")).toMatchObject({ params: { model: "a/b" } });
    expect(r.match("GET", "/v1/models/%E0%A4%A")).toEqual({ kind: "not_found" });
  });

  it("tells a wrong method from an unknown path", () => {
    expect(r.match("DELETE", "/v1/models")).toEqual({ kind: "method_not_allowed", allowed: ["GET"] });
    expect(r.match("GET", "/v1/chat/completions")).toEqual({ kind: "method_not_allowed", allowed: ["POST"] });
    expect(r.match("GET", "/v1/nothing")).toEqual({ kind: "not_found" });
    expect(r.match("GET", "/v1/models/a/b")).toEqual({ kind: "not_found" });
  });
});
