import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./load";
import { priceToMicro } from "./apply";

const SA = JSON.stringify({ client_email: "v@p.iam.gserviceaccount.com", private_key: "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n" });
const cfg = (upstream: Record<string, unknown>, price: Record<string, unknown> = { perSecond: { "720p": 0.2, "1080p:audio": 0.5 } }) => ({
  upstreams: [upstream],
  models: [{ id: "v", kind: "video", family: "third", upstream: upstream.id, price }],
});
function problem(c: unknown): string | null {
  try {
    parseConfig(JSON.stringify(c), "gw.json", {});
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
}

describe("video vendor upstreams in the config file", () => {
  it("take the vendors' own addresses by default and their credentials", () => {
    expect(problem(cfg({ id: "veo", protocol: "gemini-veo", apiKey: "k" }))).toBeNull();
    expect(problem(cfg({ id: "ark", protocol: "seedance", apiKey: "k" }))).toBeNull();
    expect(problem(cfg({ id: "kl", protocol: "kling", accessKeyId: "ak", secretAccessKey: "sk" }))).toBeNull();
    expect(problem(cfg({ id: "vv", protocol: "vertex-veo", project: "acme-video", region: "us-central1", serviceAccount: SA }))).toBeNull();
  });

  it("refuse a Kling upstream without both keys, and a vertex-veo one without its project", () => {
    expect(problem(cfg({ id: "kl", protocol: "kling", accessKeyId: "ak" }))).toMatch(/secretAccessKey.*required for protocol "kling"/);
    expect(problem(cfg({ id: "vv", protocol: "vertex-veo", region: "us-central1", serviceAccount: SA }))).toMatch(/project.*required for protocol "vertex-veo"/);
    expect(problem(cfg({ id: "kl", protocol: "kling", accessKeyId: "ak", secretAccessKey: "sk", sessionToken: "t" }))).toMatch(/sessionToken.*only "bedrock"/);
  });

  it("serve video only", () => {
    const c = cfg({ id: "veo", protocol: "gemini-veo", apiKey: "k" });
    c.models[0] = { id: "t", kind: "text", upstream: "veo", price: { inputPerMTok: 1, outputPerMTok: 1 } } as never;
    expect(problem(c)).toMatch(/cannot serve text models/);
  });

  it("price per second by resolution: keys checked, USD to micro-USD", () => {
    expect(problem(cfg({ id: "veo", protocol: "gemini-veo", apiKey: "k" }, { perSecond: { "720": 0.2 } }))).toMatch(/resolution such as 720p/);
    expect(problem(cfg({ id: "veo", protocol: "gemini-veo", apiKey: "k" }, { perSecond: {} }))).toMatch(/at least one resolution/);
    expect(priceToMicro({ perSecond: { "720p": 0.2, "1080p:audio": 0.5 } })).toEqual({ perSecond: { "720p": 200_000, "1080p:audio": 500_000 } });
    expect(priceToMicro({ perSecond: 0.025 })).toEqual({ perSecond: 25_000 });
  });
});
