/**
 * Smoke (runs on PGlite too): the built-in demo catalog's embedding and image models through
 * the official openai SDK, billed like any upstream. No fakes, no direct SQL.
 */
import OpenAI from "openai";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let server: TestServer;
let client: OpenAI;
let email: string;

beforeAll(async () => {
  server = await startTestServer();
  let key: string;
  ({ email, key } = await createAccount(server, { usd: 1 }));
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(() => server?.dispose());

describe("demo media models", () => {
  it("embeds with the SDK's default base64, similar texts closer, and charges tokens", async () => {
    const before = await balanceUsd(server, email);
    const { data: res, response } = await client.embeddings
      .create({ model: "demo-embed", input: ["a small red fox", "a small red foxes", "tax law reform"] })
      .withResponse();
    expect(res.model).toBe("demo-embed");
    const [a, b, c] = res.data.map((d) => d.embedding);
    const dot = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(dot(a!, a!)).toBeCloseTo(1, 4);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!) + 0.3);
    expect(res.usage.prompt_tokens).toBeGreaterThan(0);
    const cost = Number(response.headers.get("x-gateway-cost-usd"));
    expect(cost).toBeGreaterThan(0);
    expect(before - (await balanceUsd(server, email))).toBeCloseTo(cost, 6);
  });

  it("generates a real PNG and charges the documented price of its quality and size", async () => {
    const before = await balanceUsd(server, email);
    const { data: res, response } = await client.images
      .generate({ model: "demo-image", prompt: "a blue whale", quality: "low", size: "1024x1024" })
      .withResponse();
    const bytes = Buffer.from(res.data![0]!.b64_json!, "base64");
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("\x89PNG");
    const png = PNG.sync.read(bytes);
    expect(png.width).toBe(png.height);
    expect(response.headers.get("x-gateway-cost-usd")).toBe("0.021");
    expect(before - (await balanceUsd(server, email))).toBeCloseTo(0.021, 6);
  });

  it("answers 402 when the balance cannot cover an image, and 400 for n=2", async () => {
    const poor = await createAccount(server, { usd: 0.01 });
    const c = new OpenAI({ apiKey: poor.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await c.images.generate({ model: "demo-image", prompt: "p", quality: "high" }).catch((e) => e);
    expect([err.status, err.code]).toEqual([402, "insufficient_user_quota"]);
    const n = await client.images.generate({ model: "demo-image", prompt: "p", n: 2 }).catch((e) => e);
    expect([n.status, n.param]).toEqual([400, "n"]);
  });
});

// The next mount runs admin commands through its own database connection: PostgreSQL only.
describe.runIf(usesPostgres())("demo media models on the Next.js route-handler mount", () => {
  let next: TestServer;
  let c: OpenAI;
  beforeAll(async () => {
    next = await startTestServer({ mount: "next" });
    const acct = await createAccount(next, { usd: 1 });
    c = new OpenAI({ apiKey: acct.key, baseURL: `${next.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => next?.dispose());

  it("serves embeddings and a real PNG there too (pngjs inside Next's bundle)", async () => {
    const e = await c.embeddings.create({ model: "demo-embed", input: "hello" });
    expect(e.data[0]!.embedding).toHaveLength(256);
    const img = await c.images.generate({ model: "demo-image-mini", prompt: "a green field" });
    expect(PNG.sync.read(Buffer.from(img.data![0]!.b64_json!, "base64")).width).toBeGreaterThan(0);
  });
});
