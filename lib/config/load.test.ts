import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { priceToMicro } from "./apply";
import { ConfigError, parseConfig } from "./load";

const base: { upstreams: Record<string, unknown>[]; models: Record<string, any>[] } = {
  upstreams: [
    { id: "oa", protocol: "openai", baseUrl: "http://127.0.0.1:19001/v1", apiKey: "k" },
    { id: "an", protocol: "anthropic", baseUrl: "http://127.0.0.1:19002", apiKey: "k" },
    { id: "vid", protocol: "openai-video", baseUrl: "http://127.0.0.1:19004/v1" },
  ],
  models: [
    { id: "chat-a", kind: "text", upstream: "an", upstreamModel: "claude-x", price: { inputPerMTok: 3, outputPerMTok: 15 } },
    { id: "emb-a", kind: "embedding", upstream: "oa", price: { inputPerMTok: 0.02 } },
    { id: "img-a", kind: "image", upstream: "oa", price: { perImage: { "low:1024x1024": 0.021, "high:1536x1024": 0.26 } } },
    { id: "vid-a", kind: "video", family: "t2v", upstream: "vid", price: { perVideo: 0.25 } },
  ],
};

const parse = (cfg: unknown, env: Record<string, string> = {}) => parseConfig(JSON.stringify(cfg), "gw.json", env);
function problem(cfg: unknown, env: Record<string, string> = {}): string {
  try {
    parse(cfg, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
}
const mutate = (fn: (c: typeof base) => void) => {
  const c = structuredClone(base);
  fn(c);
  return c;
};

describe("gateway config validation", () => {
  it("accepts the documented example", () => {
    const cfg = parse(base);
    expect(cfg.models).toHaveLength(4);
  });

  it("replaces ${ENV} references and names a missing one", () => {
    const c = mutate((c) => (c.upstreams[0]!.apiKey = "${OA_KEY}"));
    expect(parse(c, { OA_KEY: "secret" }).upstreams[0]!.apiKey).toBe("secret");
    expect(problem(c)).toBe("Invalid gateway config gw.json: upstreams[0].apiKey: environment variable OA_KEY is not set");
  });

  it.each<[string, (c: typeof base) => void, RegExp]>([
    ["unknown protocol", (c) => ((c.upstreams[0] as { protocol: string }).protocol = "grpc"), /upstreams\[0\]\.protocol/],
    ["missing baseUrl", (c) => delete (c.upstreams[1] as { baseUrl?: string }).baseUrl, /upstreams\[1\]\.baseUrl: required/],
    ["non-http baseUrl", (c) => (c.upstreams[0]!.baseUrl = "ftp://x"), /upstreams\[0\]\.baseUrl/],
    ["duplicate upstream", (c) => c.upstreams.push({ ...c.upstreams[0]! }), /upstreams\[3\]\.id: duplicate upstream id "oa"/],
    ["unknown upstream", (c) => (c.models[0]!.upstream = "nope"), /models\[0\]\.upstream: no upstream with id "nope"/],
    ["kind the protocol cannot serve", (c) => (c.models[1]!.upstream = "an"), /models\[1\]\.kind: upstream "an" \(anthropic\) cannot serve embedding/],
    ["text without output price", (c) => delete (c.models[0]!.price as { outputPerMTok?: number }).outputPerMTok, /models\[0\]\.price\.outputPerMTok: required/],
    ["negative price", (c) => ((c.models[0]!.price as { inputPerMTok: number }).inputPerMTok = -1), /models\[0\]\.price\.inputPerMTok/],
    ["bad image price key", (c) => ((c.models[2]!.price as { perImage: Record<string, number> }).perImage = { big: 1 }), /models\[2\]\.price\.perImage/],
    ["video without a price", (c) => (c.models[3]!.price = {} as never), /models\[3\]\.price: video models need perVideo or perSecond/],
    ["family on a text model", (c) => ((c.models[0] as { family?: string }).family = "t2v"), /models\[0\]\.family/],
    ["unknown field", (c) => ((c.models[0] as Record<string, unknown>).prise = 1), /models\[0\]/],
    ["unknown vendor", (c) => (c.upstreams[0]!.vendor = "acme"), /upstreams\[0\]\.vendor/],
    ["speech without a price", (c) => c.models.push({ id: "tts", kind: "speech", upstream: "oa", price: {} }), /models\[4\]\.price: speech models need one of perMCharacters, perSecond or token prices/],
    ["speech with two bases", (c) => c.models.push({ id: "tts", kind: "speech", upstream: "oa", price: { perMCharacters: 15, perSecond: 0.01 } }), /models\[4\]\.price: speech models need one of/],
    ["speech tokens without the audio-out price", (c) => c.models.push({ id: "tts", kind: "speech", upstream: "oa", price: { inputPerMTok: 0.6 } }), /models\[4\]\.price\.audioOutputPerMTok: required with the other token prices/],
    ["transcription tokens without the output price", (c) => c.models.push({ id: "stt", kind: "transcription", upstream: "oa", price: { inputPerMTok: 2.5, audioInputPerMTok: 6 } }), /models\[4\]\.price\.outputPerMTok: required/],
    ["per-character transcription", (c) => c.models.push({ id: "stt", kind: "transcription", upstream: "oa", price: { perMCharacters: 1 } }), /models\[4\]\.price\.perMCharacters: transcription models do not have it/],
    ["audio prices on a text model", (c) => ((c.models[0]!.price as Record<string, number>).audioInputPerMTok = 1), /models\[0\]\.price\.audioInputPerMTok: only speech and transcription models/],
    ["image tokens without the output price", (c) => ((c.models[2]!.price as Record<string, number>).inputPerMTok = 5), /models\[2\]\.price\.imageOutputPerMTok: required with the other token prices of image models/],
    ["image tokens without the input price", (c) => ((c.models[2]!.price as Record<string, number>).imageOutputPerMTok = 40), /models\[2\]\.price\.inputPerMTok: required/],
    ["image input price on a text model", (c) => ((c.models[0]!.price as Record<string, number>).imageInputPerMTok = 1), /models\[0\]\.price\.imageInputPerMTok: only image models have it/],
    ["image prices on an embedding model", (c) => ((c.models[1]!.price as Record<string, number>).imageOutputPerMTok = 1), /models\[1\]\.price\.imageOutputPerMTok: only image models and text models that draw have it/],
    ["speech on an anthropic upstream", (c) => c.models.push({ id: "tts", kind: "speech", upstream: "an", price: { perMCharacters: 15 } }), /cannot serve speech models/],
    ["vendor on a non-openai upstream", (c) => (c.upstreams[1]!.vendor = "xai"), /upstreams\[1\]\.vendor: only "openai" upstreams have it/],
    [
      "shared id with another price",
      (c) => c.models.push({ ...c.models[0]!, upstream: "oa", price: { inputPerMTok: 1, outputPerMTok: 2 } }),
      /models\[4\]\.price: entries for "chat-a" must share one price/,
    ],
    [
      "shared embedding id with another upstream model",
      (c) => {
        c.upstreams.push({ id: "oa2", protocol: "openai", baseUrl: "http://127.0.0.1:1/v1", apiKey: "k" });
        c.models.push({ ...c.models[1]!, upstream: "oa2", upstreamModel: "other-embedder" } as never);
      },
      /models\[4\]\.upstreamModel: embedding entries for "emb-a" must share one upstreamModel/,
    ],
  ])("names the field: %s", (_name, fn, expected) => {
    expect(problem(mutate(fn))).toMatch(expected);
  });

  it("allows failover entries that share id and price", () => {
    const c = mutate((c) => c.models.push({ ...c.models[0]!, upstream: "oa", upstreamModel: "gpt-x" }));
    expect(parse(c).models.filter((m) => m.id === "chat-a")).toHaveLength(2);
  });

  it("checks aliases: known targets of one kind, not a model's own id, one target for embeddings", () => {
    const ok = parse({ ...base, aliases: [{ id: "claude-*", targets: ["chat-a"] }, { id: "emb", targets: ["emb-a"] }] });
    expect(ok.aliases).toHaveLength(2);
    expect(problem({ ...base, aliases: [{ id: "x", targets: ["nope"] }] })).toMatch(/aliases\[0\]\.targets\[0\]: no model with id "nope"/);
    expect(problem({ ...base, aliases: [{ id: "chat-a", targets: ["chat-a"] }] })).toMatch(/is a model id/);
    expect(problem({ ...base, aliases: [{ id: "x", targets: ["chat-a", "emb-a"] }] })).toMatch(/one kind/);
    const two = mutate((c) => c.models.push({ id: "emb-b", kind: "embedding", upstream: "oa", price: { inputPerMTok: 0.02 } }));
    expect(problem({ ...two, aliases: [{ id: "e", targets: ["emb-a", "emb-b"] }] })).toMatch(/embedding alias names one target/);
  });

  it("checks the lifecycle: ISO dates, shutdown after deprecation, a successor of the same kind, shared by an id's entries", () => {
    const lc = { deprecatedAt: "2026-06-01", shutdownAt: "2026-09-24T12:00:00+02:00", successor: "chat-b", serveSuccessorAfterShutdown: true };
    const ok = parse(mutate((c) => (Object.assign(c.models[0]!, lc), c.models.push({ id: "chat-b", kind: "text", upstream: "oa", price: { inputPerMTok: 1, outputPerMTok: 2 } }))));
    expect(ok.models[0]).toMatchObject(lc);
    const withB = (extra: Record<string, unknown>) =>
      mutate((c) => (Object.assign(c.models[0]!, extra), c.models.push({ id: "chat-b", kind: "text", upstream: "oa", price: { inputPerMTok: 1, outputPerMTok: 2 } })));
    expect(problem(withB({ deprecatedAt: "soon" }))).toMatch(/models\[0\]\.deprecatedAt: must be an ISO 8601 date/);
    expect(problem(withB({ deprecatedAt: "2026-09-24T10:00:00" }))).toMatch(/models\[0\]\.deprecatedAt/);
    expect(problem(withB({ shutdownAt: "2026-09-24" }))).toMatch(/models\[0\]\.deprecatedAt: is required with shutdownAt/);
    expect(problem(withB({ deprecatedAt: "2026-10-01", shutdownAt: "2026-09-24" }))).toMatch(/models\[0\]\.shutdownAt: must not be before deprecatedAt/);
    expect(problem(withB({ successor: "nope" }))).toMatch(/models\[0\]\.successor: no model with id "nope"/);
    expect(problem(withB({ successor: "chat-a" }))).toMatch(/models\[0\]\.successor: cannot be the model itself/);
    expect(problem(withB({ successor: "emb-a" }))).toMatch(/models\[0\]\.successor: "emb-a" is an embedding model; the successor must be a text model/);
    expect(problem(withB({ successor: "chat-b", serveSuccessorAfterShutdown: true }))).toMatch(/models\[0\]\.serveSuccessorAfterShutdown: needs a successor and a shutdownAt/);
    const split = mutate((c) => c.models.push({ ...c.models[0]!, upstream: "oa", deprecatedAt: "2026-06-01" }));
    expect(problem(split)).toMatch(/models\[4\]\.deprecatedAt: entries for "chat-a" must share one deprecatedAt/);
  });

  it("accepts each audio pricing basis", () => {
    const c = mutate((c) =>
      c.models.push(
        { id: "tts-1", kind: "speech", upstream: "oa", price: { perMCharacters: 15 } },
        { id: "tts-s", kind: "speech", upstream: "oa", price: { perSecond: 0.00025 } },
        { id: "mini-tts", kind: "speech", upstream: "oa", price: { inputPerMTok: 0.6, audioOutputPerMTok: 12 } },
        { id: "whisper-1", kind: "transcription", upstream: "oa", price: { perSecond: 0.0001 } },
        { id: "4o-transcribe", kind: "transcription", upstream: "oa", price: { inputPerMTok: 2.5, audioInputPerMTok: 6, outputPerMTok: 10 } },
      ),
    );
    expect(parse(c).models).toHaveLength(9);
  });

  it("accepts an image model billed from usage, converted to micro-USD", () => {
    const c = mutate((c) => Object.assign(c.models[2]!.price as object, { inputPerMTok: 5, imageInputPerMTok: 10, imageOutputPerMTok: 40 }));
    expect(priceToMicro(parse(c).models[2]!.price)).toMatchObject({ inputPerMTok: 5_000_000, imageInputPerMTok: 10_000_000, imageOutputPerMTok: 40_000_000 });
  });

  it("reports invalid JSON with the file name", () => {
    expect(() => parseConfig("{", "gw.json")).toThrow(/^Invalid gateway config gw.json: not valid JSON/);
  });
});

describe("the config files the docs show", () => {
  const env = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", GEMINI_API_KEY: "g", VIDEO_API_KEY: "v" };
  for (const doc of ["README.md", "docs/configuration.md"]) {
    it(`${doc}'s first JSON block is a valid config file`, () => {
      const text = readFileSync(new URL(`../../${doc}`, import.meta.url), "utf8");
      const block = /```json\n([\s\S]*?)```/.exec(text)![1]!;
      expect(() => parseConfig(block, doc, env)).not.toThrow();
    });
  }
});
