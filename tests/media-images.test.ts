/**
 * POST /v1/images/generations through the official openai SDK against the real server, with
 * the fake OpenAI media upstream on loopback and the demo upstream: real image files, the
 * price of every quality:size in the ledger, automatic size, flat prices, failure not charged,
 * 402 before any upstream call, bad inputs, Idempotency-Key.
 */
import OpenAI from "openai";
import { PNG } from "pngjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeGeminiEmbed, type FakeGeminiEmbed } from "./fakes/gemini-embed-upstream";
import { IMAGE_PRICES_USD, mediaGatewayConfig } from "./fakes/media-gateway-config";
import { startFakeOpenAIMedia, type FakeOpenAIMedia } from "./fakes/openai-media-upstream";
import { balanceUsd, createAccount, createKey } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let server: TestServer;
let oa: FakeOpenAIMedia;
let ge: FakeGeminiEmbed;
let client: OpenAI;
let email: string;
let key: string;

beforeAll(async () => {
  oa = await startFakeOpenAIMedia();
  ge = await startFakeGeminiEmbed();
  server = await startTestServer({ config: mediaGatewayConfig(oa.baseUrl, ge.baseUrl) });
  ({ email, key } = await createAccount(server, { usd: 20 }));
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 130_000 });
});
afterAll(async () => {
  await server?.dispose();
  await oa?.close();
  await ge?.close();
});
beforeEach(() => {
  oa.requests.length = 0;
  oa.aborted.length = 0;
  Object.assign(oa.script, { images: "ok", imageSize: undefined, omitImageSize: false, delayMs: 0 });
});

const micro = (usd: number) => Math.round(usd * 1_000_000);
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function decodePng(b64: string | undefined) {
  const bytes = Buffer.from(b64 ?? "", "base64");
  expect(bytes.subarray(0, 8)).toEqual(PNG_MAGIC);
  return PNG.sync.read(bytes);
}

/** Generates and returns the charge in micro-USD, checked three ways: header, balance, ledger. */
async function charged(params: OpenAI.Images.ImageGenerateParamsNonStreaming) {
  const before = await balanceUsd(server, email);
  const { data, response } = await client.images.generate(params).withResponse();
  const after = await balanceUsd(server, email);
  const cost = micro(Number(response.headers.get("x-gateway-cost-usd")));
  expect(micro(before - after)).toBe(cost);
  expect(response.headers.get("x-gateway-model")).toBe(params.model);
  expect(Number(response.headers.get("x-gateway-balance-usd"))).toBeCloseTo(after, 6);
  if (usesPostgres()) {
    const rows = await server.query<{ delta_micro_usd: string }>("select delta_micro_usd from ledger_entries where request_id = $1 and kind = 'charge'", [
      response.headers.get("x-request-id"),
    ]);
    expect(rows.map((r) => Number(r.delta_micro_usd))).toEqual([-cost]);
  }
  return { cost, data };
}

describe("image generation through the openai SDK", () => {
  it("returns the spec's shape with a real PNG in data[0].b64_json", async () => {
    const res = await client.images.generate({ model: "img-oa", prompt: "a lighthouse", size: "1536x1024", quality: "high" });
    expect(Number.isInteger(res.created)).toBe(true);
    expect(res.data).toHaveLength(1);
    const png = decodePng(res.data![0]!.b64_json);
    expect(png.width / png.height).toBeCloseTo(1.5, 1);
    expect(res.size).toBe("1536x1024");
    expect(oa.requests[0]!.body).toEqual({ model: "gpt-image-1", prompt: "a lighthouse", n: 1, size: "1536x1024", quality: "high" });
  });

  it.each(Object.entries(IMAGE_PRICES_USD))("charges exactly the price of %s (%f USD) in the ledger", async (qs, usd) => {
    const [quality, size] = qs.split(":") as ["low" | "medium" | "high", "1024x1024" | "1536x1024" | "1024x1536"];
    const { cost } = await charged({ model: "img-oa", prompt: "a cat", quality, size });
    expect(cost).toBe(micro(usd));
  });

  it("defaults quality to medium", async () => {
    const { cost } = await charged({ model: "img-oa", prompt: "a cat", size: "1024x1024" });
    expect(oa.requests[0]!.body.quality).toBe("medium");
    expect(cost).toBe(micro(IMAGE_PRICES_USD["medium:1024x1024"]!));
  });

  it("chooses the size automatically when it is omitted or not listed, and charges the size produced", async () => {
    oa.script.imageSize = "1024x1536";
    const omitted = await charged({ model: "img-oa", prompt: "a cat", quality: "high" });
    expect(oa.requests[0]!.body.size).toBe("auto");
    expect(omitted.cost).toBe(micro(IMAGE_PRICES_USD["high:1024x1536"]!));
    expect(omitted.data.size).toBe("1024x1536");

    // An unlisted size is not an error; the upstream says nothing, so the image's own pixels decide.
    oa.script.imageSize = "1024x1024";
    oa.script.omitImageSize = true;
    const other = await charged({ model: "img-oa", prompt: "a cat", quality: "low", size: "512x512" as never });
    expect(oa.requests[1]!.body.size).toBe("auto");
    expect(other.cost).toBe(micro(IMAGE_PRICES_USD["low:1024x1024"]!));
  });

  it("charges a flat-priced model its one price whatever the quality", async () => {
    const { cost } = await charged({ model: "img-flat", prompt: "a cat", quality: "high", size: "1536x1024" });
    expect(cost).toBe(micro(0.02));
    expect(oa.requests[0]!.body.quality).toBeUndefined();
  });

  it("an alias serves from its next target when the first is down, at the serving model's price (header and row say which)", async () => {
    const before = await balanceUsd(server, email);
    const { response } = await client.images.generate({ model: "img-alias", prompt: "a cat", quality: "high", size: "1536x1024" }).withResponse();
    expect(response.headers.get("x-gateway-model")).toBe("img-flat");
    expect(micro(Number(response.headers.get("x-gateway-cost-usd")))).toBe(micro(0.02));
    expect(micro(before - (await balanceUsd(server, email)))).toBe(micro(0.02));
    if (usesPostgres()) {
      const [row] = await server.query<{ model: string; served_model: string; cost_micro_usd: string }>("select model, served_model, cost_micro_usd from request_logs where request_id = $1", [response.headers.get("x-request-id")]);
      expect(row).toMatchObject({ model: "img-alias", served_model: "img-flat" });
      expect(Number(row!.cost_micro_usd)).toBe(micro(0.02));
    }
  });

  it("renders a real PNG on the demo upstream, at the requested aspect, priced like any other", async () => {
    const tall = await charged({ model: "demo-image", prompt: "a red tower at night", quality: "low", size: "1024x1536" });
    expect(tall.cost).toBe(micro(IMAGE_PRICES_USD["low:1024x1536"]!));
    const png = decodePng(tall.data.data![0]!.b64_json);
    expect(png.height / png.width).toBeCloseTo(1.5, 1);
    const auto = await charged({ model: "demo-image-mini", prompt: "a wide mountain landscape" });
    expect(auto.cost).toBe(micro(0.01));
    const wide = decodePng(auto.data.data![0]!.b64_json);
    expect(wide.width / wide.height).toBeCloseTo(1.5, 1);
  });
});

describe("image limits", () => {
  it("a key's concurrency limit holds parallel image requests; a finished one frees its slot", async () => {
    const tight = await createKey(server, email, "--concurrency", "1", "--tpm", "1000");
    const post = () =>
      fetch(`${server.url}/v1/images/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${tight}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "img-oa", prompt: "a lighthouse at dusk", size: "1024x1024" }),
      });
    oa.script.delayMs = 400;
    const [a, b] = await Promise.all([post(), post()]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    const refused = a.status === 429 ? a : b;
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(oa.requests).toHaveLength(1);
    const served = a.status === 200 ? a : b;
    expect(served.headers.get("x-ratelimit-limit-tokens")).toBe("1000");
    oa.script.delayMs = 0;
    expect((await post()).status).toBe(200);
  });
});

describe("image billing failures", () => {
  it.each([
    ["fails with 500", "fail500", 502],
    ["rejects the prompt", "fail400", 400],
  ] as const)("charges nothing when the upstream %s", async (_name, behavior, status) => {
    oa.script.images = behavior;
    const before = await balanceUsd(server, email);
    const err = await client.images.generate({ model: "img-oa", prompt: "a cat", quality: "high" }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(status);
    expect(err.type).toBe("upstream_error");
    expect(await balanceUsd(server, email)).toBe(before);
    if (usesPostgres()) {
      const logs = await server.query<{ cost_micro_usd: string; settlement: string; status: number }>(
        "select cost_micro_usd, settlement, status from request_logs where request_id = $1",
        [err.headers.get("x-request-id")],
      );
      expect(logs).toEqual([{ cost_micro_usd: "0", settlement: "upstream_error", status }]);
      const held = await server.query<{ n: string }>("select count(*) as n from holds");
      expect(held).toEqual([{ n: "0" }]);
    }
  });

  it("answers 402 before any upstream call when the balance cannot cover the price", async () => {
    const poor = await createAccount(server, { usd: 0.05 });
    const c = new OpenAI({ apiKey: poor.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await c.images.generate({ model: "img-oa", prompt: "a cat", quality: "high", size: "1536x1024" }).catch((e) => e);
    expect([err.status, err.code]).toEqual([402, "insufficient_user_quota"]);
    expect(oa.requests).toHaveLength(0);
    await expectNothingHeldOrCharged(poor.email);
    // Auto size holds the quality's highest price, so it is refused the same way.
    const auto = await c.images.generate({ model: "img-oa", prompt: "a cat", quality: "medium" }).catch((e) => e);
    expect(auto.status).toBe(402);
    expect(oa.requests).toHaveLength(0);
    // What fits still works.
    await c.images.generate({ model: "img-oa", prompt: "a cat", quality: "low", size: "1024x1024" });
    expect(await balanceUsd(server, poor.email)).toBeCloseTo(0.05 - 0.021, 6);
  });
});

/** PostgreSQL only: no hold left open and no charge row for the account (nothing charged). */
async function expectNothingHeldOrCharged(accountEmail: string) {
  if (!usesPostgres()) return;
  const rows = await server.query<{ holds: string; charges: string }>(
    `select (select count(*) from holds h where h.account_id = u.account_id) as holds,
            (select count(*) from ledger_entries l where l.account_id = u.account_id and l.kind = 'charge') as charges
       from users u where u.email = $1`,
    [accountEmail],
  );
  expect(rows).toEqual([{ holds: "0", charges: "0" }]);
}

describe("concurrency and disconnects", () => {
  it("admits exactly what the balance covers when requests overlap", async () => {
    const acct = await createAccount(server, { usd: 1 });
    const c = new OpenAI({ apiKey: acct.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    oa.script.delayMs = 300;
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        c.images.generate({ model: "img-oa", prompt: "a cat", quality: "high", size: "1536x1024" }).then(
          () => 200,
          (e) => e.status as number,
        ),
      ),
    );
    // 3 × 0.26 = 0.78 fits in 1.00; a fourth would not.
    expect(results.filter((s) => s === 200)).toHaveLength(3);
    expect(results.filter((s) => s === 402)).toHaveLength(5);
    expect(oa.requests).toHaveLength(3);
    expect(await balanceUsd(server, acct.email)).toBeCloseTo(1 - 0.78, 6);
  });

  it("charges nothing and returns the hold when the client goes away before the image is ready", async () => {
    const acct = await createAccount(server, { usd: 1 });
    oa.script.images = "hang";
    const ac = new AbortController();
    const pending = fetch(`${server.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${acct.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "img-oa", prompt: "a cat", quality: "high" }),
      signal: ac.signal,
    }).catch(() => null);
    while (oa.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await pending;
    // The gateway aborts its upstream call when its client leaves.
    while (oa.aborted.length === 0) await new Promise((r) => setTimeout(r, 20));
    // Then it releases the hold; wait until the spendable balance is whole again.
    while ((await balanceAfterHolds(acct.email)) !== 1) await new Promise((r) => setTimeout(r, 50));
    expect(await balanceUsd(server, acct.email)).toBe(1);
    await expectNothingHeldOrCharged(acct.email);
  });
});

/** The balance, minus open holds on PostgreSQL (PGlite: the balance alone). */
async function balanceAfterHolds(accountEmail: string): Promise<number> {
  if (!usesPostgres()) return balanceUsd(server, accountEmail);
  const [row] = await server.query<{ spendable: string }>(
    "select a.balance_micro_usd - a.held_micro_usd as spendable from accounts a join users u on u.account_id = a.id where u.email = $1",
    [accountEmail],
  );
  return Number(row!.spendable) / 1_000_000;
}

describe("key spend limit", () => {
  it("answers 402 key_limit_exceeded when the key's limit cannot cover the hold", async () => {
    const limited = await createAccount(server, { usd: 5, keyArgs: ["--limit-usd", "0.1"] });
    const c = new OpenAI({ apiKey: limited.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await c.images.generate({ model: "img-oa", prompt: "a cat", quality: "high", size: "1536x1024" }).catch((e) => e);
    expect([err.status, err.code]).toEqual([402, "key_limit_exceeded"]);
    expect(oa.requests).toHaveLength(0);
    expect(await balanceUsd(server, limited.email)).toBe(5);
  });
});

describe("image request errors", () => {
  const bad = async (body: Record<string, unknown>) => {
    const err = await client.images.generate(body as never).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(oa.requests).toHaveLength(0);
    return err as InstanceType<typeof OpenAI.APIError>;
  };

  it.each([
    ["n other than 1", { model: "img-oa", prompt: "p", n: 2 }, "n"],
    ["no prompt", { model: "img-oa" }, "prompt"],
    ["a URL response", { model: "img-oa", prompt: "p", response_format: "url" }, "response_format"],
    ["an unknown quality", { model: "img-oa", prompt: "p", quality: "ultra" }, "quality"],
  ])("rejects %s with 400 invalid_request naming the field", async (_name, body, param) => {
    const err = await bad(body);
    expect([err.status, err.code, err.param]).toEqual([400, "invalid_request", param]);
    expect(err.message).toContain(param);
  });

  it("rejects an embedding model with model_not_supported naming it", async () => {
    const err = await bad({ model: "emb-oa", prompt: "p" });
    expect([err.status, err.code]).toEqual([400, "model_not_supported"]);
    expect(err.message).toContain("emb-oa");
  });
});

describe("Idempotency-Key", () => {
  const post = (body: unknown, idem: string) =>
    fetch(`${server.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idem },
      body: JSON.stringify(body),
    });

  it("returns the first answer to a repeat and charges once", async () => {
    const body = { model: "img-oa", prompt: "a cat", quality: "low", size: "1024x1024" };
    const before = await balanceUsd(server, email);
    const first = await post(body, "idem-1");
    const second = await post(body, "idem-1");
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await second.text()).toBe(await first.text());
    expect(oa.requests).toHaveLength(1);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(micro(0.021));
    // Same key, different body: refused.
    const other = await post({ ...body, prompt: "a dog" }, "idem-1");
    expect(other.status).toBe(400);
  });

  it("lets concurrent repeats reach the upstream once", async () => {
    const body = { model: "img-oa", prompt: "a cat", quality: "low", size: "1024x1024" };
    const before = await balanceUsd(server, email);
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => post(body, "idem-concurrent")))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(oa.requests).toHaveLength(1);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(micro(0.021));
  });

  it("frees the key after a failure, so a retry runs", async () => {
    oa.script.images = "fail500";
    expect((await post({ model: "img-oa", prompt: "x" }, "idem-fail")).status).toBe(502);
    oa.script.images = "ok";
    expect((await post({ model: "img-oa", prompt: "x" }, "idem-fail")).status).toBe(200);
  });
});
