import { describe, expect, it } from "vitest";
import { applyLifecycle, lifecycleHeaders, type ModelLifecycle } from "./lifecycle";
import type { ModelRoute } from "./model-route";

const route = (modelId: string, kind: ModelRoute["kind"] = "text"): ModelRoute => ({
  rowId: `row-${modelId}`,
  modelId,
  kind,
  family: null,
  ownedBy: "x",
  upstreamModel: modelId,
  price: { inputPerMTok: 1, outputPerMTok: 2 },
  defaultMaxTokens: null,
  strict: false,
  upstream: { id: "u", protocol: "demo", baseUrl: "", apiKey: null, timeoutMs: null },
});

const DEPRECATED = new Date("2026-06-01T00:00:00Z");
const SHUTDOWN = new Date("2026-09-24T00:00:00Z");
const old: ModelLifecycle = { deprecatedAt: DEPRECATED, shutdownAt: SHUTDOWN, successor: "new-model", serveSuccessorAfterShutdown: false };

function catalog(lifecycles: Record<string, ModelLifecycle>, routes: Record<string, ModelRoute[]>) {
  return { lifecycle: (id: string) => lifecycles[id], routes: (id: string) => routes[id] };
}

describe("lifecycle headers", () => {
  it("are absent before deprecatedAt and for a model without a lifecycle", () => {
    expect(lifecycleHeaders(old, new Date("2026-05-31T23:59:59Z"))).toEqual({});
    expect(lifecycleHeaders(undefined, new Date())).toEqual({});
  });

  it("name the deprecation (RFC 9745), the sunset (RFC 8594) and the successor from deprecatedAt on", () => {
    expect(lifecycleHeaders(old, DEPRECATED)).toEqual({
      deprecation: `@${DEPRECATED.getTime() / 1000}`,
      sunset: "Thu, 24 Sep 2026 00:00:00 GMT",
      link: '</v1/models/new-model>; rel="successor-version"',
    });
  });

  it("leave out Sunset and Link when there is no shutdown or successor; encode the id in the link", () => {
    expect(lifecycleHeaders({ ...old, shutdownAt: null, successor: null }, SHUTDOWN)).toEqual({ deprecation: "@1780272000" });
    expect(lifecycleHeaders({ ...old, successor: "org/model:v2" }, SHUTDOWN).link).toBe('</v1/models/org%2Fmodel%3Av2>; rel="successor-version"');
  });
});

describe("applyLifecycle", () => {
  const before = new Date("2026-09-23T23:59:59Z");
  const after = SHUTDOWN;

  it("keeps the model's routes until shutdownAt, with the notice", () => {
    const r = applyLifecycle("old", [route("old")], catalog({ old }, { "new-model": [route("new-model")] }), before);
    expect(r.ok && r.value.map((x) => x.modelId)).toEqual(["old"]);
    expect(r.headers.deprecation).toBeDefined();
  });

  it("answers 410 model_shut_down naming the successor from shutdownAt on", () => {
    const r = applyLifecycle("old", [route("old")], catalog({ old }, { "new-model": [route("new-model")] }), after);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ status: 410, code: "model_shut_down", param: "model" });
    expect(r.error.message).toBe('The model "old" was shut down on 2026-09-24T00:00:00.000Z; use "new-model" instead.');
    expect(r.headers.sunset).toBe("Thu, 24 Sep 2026 00:00:00 GMT");
  });

  it("says so when there is no successor", () => {
    const r = applyLifecycle("old", [route("old")], catalog({ old: { ...old, successor: null } }, {}), after);
    expect(!r.ok && r.error.message).toMatch(/it has no successor\.$/);
  });

  it("serves the successor's routes when the operator opted in, and says which model served", () => {
    const lc = { ...old, serveSuccessorAfterShutdown: true };
    const r = applyLifecycle("old", [route("old")], catalog({ old: lc }, { "new-model": [route("new-model"), route("new-model")] }), after);
    expect(r.ok && r.value.map((x) => x.modelId)).toEqual(["new-model", "new-model"]);
    expect(r.headers["x-gateway-model"]).toBe("new-model");
  });

  it("is a 410 when the successor is gone, of another kind, or shut down itself (one hop)", () => {
    const lc = { ...old, serveSuccessorAfterShutdown: true };
    expect(applyLifecycle("old", [route("old")], catalog({ old: lc }, {}), after).ok).toBe(false);
    expect(applyLifecycle("old", [route("old")], catalog({ old: lc }, { "new-model": [route("new-model", "embedding")] }), after).ok).toBe(false);
    const chained = catalog({ old: lc, "new-model": { ...lc, successor: "newer" } }, { "new-model": [route("new-model")], newer: [route("newer")] });
    const r = applyLifecycle("old", [route("old")], chained, after);
    expect(!r.ok && r.error.message).toMatch(/^The model "new-model" was shut down .* use "newer" instead\.$/);
  });
});
