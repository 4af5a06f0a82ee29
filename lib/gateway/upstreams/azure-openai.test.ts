import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTRA_CLIENT, startFakeEntra, type FakeEntra } from "../../../tests/fakes/azure-openai-upstream";
import type { ModelRoute, UpstreamInfo } from "../model-route";
import { entraToken } from "./azure-entra-token";
import { azureEmbed, azureImage, azureModelsUrl, azureUrl } from "./azure-openai";

const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let seen: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }> = [];
let server: http.Server;
let base = "";
let entra: FakeEntra;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c));
    req.on("end", () => {
      seen.push({ path: req.url!, headers: req.headers, body: JSON.parse(raw) });
      const answer = req.url!.includes("/embeddings")
        ? { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.5, -0.5] }], model: "text-embedding-3-small", usage: { prompt_tokens: 2, total_tokens: 2 } }
        : { created: 1, data: [{ b64_json: PNG_1x1, content_filter_results: {} }] };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  entra = await startFakeEntra();
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await entra.close();
});

const upstream = (over: Partial<UpstreamInfo> = {}): UpstreamInfo => ({ id: "az", protocol: "azure-openai", baseUrl: base, apiKey: "azure-key-123456", timeoutMs: null, ...over });
const route = (u: UpstreamInfo, upstreamModel = "my-deployment"): ModelRoute => ({
  rowId: "r",
  modelId: "m",
  kind: "embedding",
  family: null,
  ownedBy: "t",
  upstreamModel,
  price: { inputPerMTok: 1, perImage: { "*": 40_000 } },
  defaultMaxTokens: null,
  strict: false,
  upstream: u,
});

describe("Azure OpenAI paths", () => {
  it.each([
    [undefined, "chat/completions", "/openai/v1/chat/completions"],
    ["v1", "responses", "/openai/v1/responses"],
    ["2024-10-21", "chat/completions", "/openai/deployments/my%20dep/chat/completions?api-version=2024-10-21"],
    ["2025-04-01-preview", "responses", "/openai/responses?api-version=2025-04-01-preview"],
    ["2024-10-21", "embeddings", "/openai/deployments/my%20dep/embeddings?api-version=2024-10-21"],
  ])("apiVersion %s, %s → %s", (apiVersion, path, expected) => {
    const u = upstream({ baseUrl: "https://res.openai.azure.com/", settings: apiVersion ? { apiVersion } : {} });
    expect(azureUrl(route(u, "my dep"), path)).toBe(`https://res.openai.azure.com${expected}`);
  });

  it("Test connection reads the model list of the version in use", () => {
    expect(azureModelsUrl(upstream({ baseUrl: "https://r.openai.azure.com" }))).toBe("https://r.openai.azure.com/openai/v1/models");
    expect(azureModelsUrl(upstream({ baseUrl: "https://r.openai.azure.com", settings: { apiVersion: "2024-10-21" } }))).toBe("https://r.openai.azure.com/openai/models?api-version=2024-10-21");
  });

  it("embeddings and images go to the deployment's path with the key in api-key", async () => {
    seen = [];
    const u = upstream({ settings: { apiVersion: "2024-10-21" } });
    const e = await azureEmbed(route(u), { model: "m", input: { kind: "text", texts: ["hi"] }, encodingFormat: "float" }, { timeoutMs: 5000 });
    expect(e.ok && Array.from(e.value.vectors[0]!)).toEqual([0.5, -0.5]);
    const i = await azureImage(route(u, "gpt-image-1"), { model: "m", prompt: "a cat" }, { sizes: ["1024x1024"], requestedSize: "1024x1024", quality: null } as never, { timeoutMs: 5000 });
    expect(i.ok).toBe(true);
    expect(seen.map((s) => s.path)).toEqual(["/openai/deployments/my-deployment/embeddings?api-version=2024-10-21", "/openai/deployments/gpt-image-1/images/generations?api-version=2024-10-21"]);
    for (const s of seen) {
      expect(s.headers["api-key"]).toBe("azure-key-123456");
      expect(s.headers.authorization).toBeUndefined();
    }
  });
});

describe("Entra ID tokens", () => {
  const withEntra = (id: string) =>
    upstream({ id, apiKey: null, settings: { clientId: ENTRA_CLIENT.clientId, tokenUrl: entra.tokenUrl }, credentials: { clientSecret: ENTRA_CLIENT.clientSecret } });

  it("one fetch for concurrent calls, cached until a minute before expiry, then fetched again", async () => {
    entra.expiresIn = 3600;
    const u = withEntra("az-cache");
    const before = entra.requests.length;
    const now = Date.now();
    const got = await Promise.all([entraToken(u, undefined, now), entraToken(u, undefined, now), entraToken(u, undefined, now)]);
    expect(got.every((g) => g.ok)).toBe(true);
    expect(entra.requests.length - before).toBe(1);
    expect((await entraToken(u, undefined, now + 3_500_000)).ok).toBe(true);
    expect(entra.requests.length - before).toBe(1);
    // Within the last minute of its life: a new token.
    expect((await entraToken(u, undefined, now + 3_550_000)).ok).toBe(true);
    expect(entra.requests.length - before).toBe(2);
  });

  it("a refused secret is a 502 that fails over, naming neither the secret nor the endpoint", async () => {
    const u = upstream({ id: "az-bad", apiKey: null, settings: { clientId: ENTRA_CLIENT.clientId, tokenUrl: entra.tokenUrl }, credentials: { clientSecret: "wrong-secret" } });
    const r = await azureEmbed(route(u), { model: "m", input: { kind: "text", texts: ["hi"] }, encodingFormat: "float" }, { timeoutMs: 5000 });
    expect(r).toMatchObject({ ok: false, failover: true, error: { status: 502 } });
    expect(JSON.stringify(r)).not.toMatch(/wrong-secret|127\.0\.0\.1/);
  });
});
