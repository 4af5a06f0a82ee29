/**
 * The provider registry's two halves agree: every kind a protocol declares (lib/values.ts
 * PROVIDERS, which the config file, the admin editor and the console read) has its adapter
 * here, and no adapter serves a kind its protocol does not declare (a model of that kind could
 * never be configured on it, so the adapter would be dead code, or the declaration stale).
 */
import { describe, expect, it } from "vitest";
import { PROVIDERS, UPSTREAM_PROTOCOLS, type ModelKind } from "../../values";
import { PROVIDER_IMPLEMENTATIONS } from "./registry";

const KINDS: ModelKind[] = ["text", "embedding", "image", "video", "speech", "transcription"];

describe("the provider registry", () => {
  it.each(UPSTREAM_PROTOCOLS)("%s implements exactly the kinds it declares, and its connection test", (protocol) => {
    expect(typeof PROVIDER_IMPLEMENTATIONS[protocol].probe).toBe("function");
    const declared = [...PROVIDERS[protocol].kinds].sort();
    const implemented = KINDS.filter((k) => PROVIDER_IMPLEMENTATIONS[protocol][k] !== undefined).sort();
    expect(implemented).toEqual(declared);
  });

  it("has no implementation for an undeclared protocol", () => {
    expect(Object.keys(PROVIDER_IMPLEMENTATIONS).sort()).toEqual([...UPSTREAM_PROTOCOLS].sort());
  });
});
