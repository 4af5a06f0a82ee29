/**
 * Issue 41's exact response cache, on the table store (the one a serverless deployment without
 * Redis uses): a hit costs $0 and says what it saved, a stream is replayed as the same events,
 * an organisation never reads another's answers, temperature > 0 is cached only when the key says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFourTextFakes, type FourTextFakes, type Up } from "../../../tests/fakes/four-text-upstreams";
import type { DB } from "../../../db/client";
import { responseCache } from "../../../db/schema";
import { createTestDb } from "../../../db/testing";
import { afterReplyIdle } from "../../after-reply";
import { errors } from "../errors";
import { chatCompletions, generateContent, messages, responses } from "../protocols";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import { handleText } from "../routes/text-handler";
import type { Hold, RequestLogFields } from "../../billing/port";

/** A settlement as the port was given it, its log fields flattened beside the hold and the cost. */
type Settled = RequestLogFields & { hold: Hold | null; costMicroUsd: number; reason: string };
import { CACHE_HEADER, SAVED_HEADER, cacheScopeFor } from "./cache";
import { deleteExpiredCacheEntries } from "./store";

let four: FourTextFakes;
let db: DB;
let close: () => Promise<void>;
beforeAll(async () => {
  four = await startFourTextFakes();
  ({ db, close } = await createTestDb());
});
afterAll(async () => {
  await four?.close();
  await close?.();
});

const PROTOCOLS: { name: string; up: Up; protocol: InboundProtocol; body(prompt: string, stream: boolean, temperature: number): { body: unknown; opts?: ParseOptions } }[] = [
  { name: "chat completions", up: "openai", protocol: chatCompletions, body: (p, stream, temperature) => ({ body: { model: "m-openai", stream, temperature, messages: [{ role: "user", content: p }] } }) },
  { name: "Responses", up: "responses", protocol: responses, body: (p, stream, temperature) => ({ body: { model: "m-responses", stream, temperature, input: p } }) },
  { name: "Messages", up: "anthropic", protocol: messages, body: (p, stream, temperature) => ({ body: { model: "m-anthropic", stream, temperature, max_tokens: 200, messages: [{ role: "user", content: p }] } }) },
  { name: "Gemini", up: "gemini", protocol: generateContent, body: (p, stream, temperature) => ({ body: { contents: [{ role: "user", parts: [{ text: p }] }], generationConfig: { temperature } }, opts: { pathModel: "m-gemini", stream } }) },
];

async function call(p: (typeof PROTOCOLS)[number], o: { prompt: string; stream: boolean; org?: string; temperature?: number; header?: string; key?: "on" | "all" }) {
  const settled: Settled[] = [];
  const { body, opts } = p.body(o.prompt, o.stream, o.temperature ?? 0);
  const headers = o.header ? { [CACHE_HEADER]: o.header } : {};
  const org = o.org ?? "org_a";
  const r = await handleText(
    { protocol: p.protocol, body, bodyBytes: JSON.stringify(body).length, parseOpts: opts, signal: new AbortController().signal, startedAt: performance.now(), headers },
    {
      resolveRoutes: async (model) => (model === `m-${p.up}` ? { ok: true, value: { routes: [four.route(p.up)] } } : { ok: false, error: errors.modelNotFound(model) }),
      billing: {
        reserve: async (amount) => ({ ok: true, hold: { kind: "row", holdId: "h", amountMicroUsd: amount } }),
        settle: async (hold, s) => {
          settled.push({ ...s.log, hold, costMicroUsd: s.costMicroUsd, reason: s.log.settlement });
          return { chargedMicroUsd: s.costMicroUsd, balanceAfterMicroUsd: null };
        },
      },
      caller: org,
      cache: cacheScopeFor(headers, o.key, org, db),
    },
  );
  let text = "";
  if (typeof r.body === "string") text = r.body;
  else if (r.body && !(r.body instanceof Uint8Array)) for await (const s of r.body as AsyncIterable<string>) text += s;
  await new Promise((done) => setImmediate(done));
  await afterReplyIdle();
  return { status: r.status, headers: r.headers, text, settled: settled[0]! };
}

describe.each(PROTOCOLS)("the response cache on $name", (p) => {
  it.each([false, true])("stream %s: a miss, then a hit replayed byte for byte at no cost (its usage saying so), saving what the miss cost", async (stream) => {
    const prompt = `What is 2+2? (${p.name}, ${stream})`;
    four.fakes[p.up].reset({ text: "Four, of course" });
    const miss = await call(p, { prompt, stream, header: "on" });
    expect(miss.status).toBe(200);
    expect(miss.headers[CACHE_HEADER]).toBe("miss");
    expect(miss.settled.costMicroUsd).toBeGreaterThan(0);
    const hit = await call(p, { prompt, stream, header: "on" });
    expect(four.fakes[p.up].generationRequests()).toHaveLength(1);
    expect(hit.status).toBe(200);
    expect(hit.headers[CACHE_HEADER]).toBe("hit");
    expect(hit.headers["x-gateway-cost-usd"]).toBe("0.00");
    expect(Math.round(Number(hit.headers[SAVED_HEADER]) * 1e6)).toBe(miss.settled.costMicroUsd);
    // Byte for byte, but for the cost in the usage: the hit's says 0.
    // (A chat stream carries usage only when asked with stream_options.)
    if (!(stream && p.name === "chat completions")) expect(miss.text).toMatch(/"(cost_usd|costUsd)":[1-9]|"(cost_usd|costUsd)":0\.\d*[1-9]/);
    expect(hit.text).toBe(miss.text.replace(/"(cost_usd|costUsd)":[0-9.e+-]+/g, '"$1":0'));
    expect(hit.settled).toMatchObject({ reason: "cache_hit", costMicroUsd: 0, hold: null, savedMicroUsd: miss.settled.costMicroUsd, stream });
  });
});

describe("the response cache's bounds", () => {
  const chat = PROTOCOLS[0]!;

  it("never crosses organisations", async () => {
    four.fakes.openai.reset({ text: "Org A's answer" });
    await call(chat, { prompt: "shared prompt", stream: false, header: "on", org: "org_a" });
    const other = await call(chat, { prompt: "shared prompt", stream: false, header: "on", org: "org_b" });
    expect(other.headers[CACHE_HEADER]).toBe("miss");
    expect(four.fakes.openai.generationRequests()).toHaveLength(2);
  });

  it("a streamed and a whole request are different entries", async () => {
    four.fakes.openai.reset({ text: "Either way" });
    await call(chat, { prompt: "flag", stream: false, header: "on" });
    const streamed = await call(chat, { prompt: "flag", stream: true, header: "on" });
    expect(streamed.headers[CACHE_HEADER]).toBe("miss");
  });

  it("temperature > 0 is bypassed unless the key says `all`", async () => {
    four.fakes.openai.reset({ text: "Creative" });
    const a = await call(chat, { prompt: "poem", stream: false, header: "on", temperature: 0.7 });
    const b = await call(chat, { prompt: "poem", stream: false, header: "on", temperature: 0.7 });
    expect([a.headers[CACHE_HEADER], b.headers[CACHE_HEADER]]).toEqual(["bypass", "bypass"]);
    await call(chat, { prompt: "poem", stream: false, key: "all", temperature: 0.7 });
    const d = await call(chat, { prompt: "poem", stream: false, key: "all", temperature: 0.7 });
    expect(d.headers[CACHE_HEADER]).toBe("hit");
    expect(four.fakes.openai.generationRequests()).toHaveLength(3);
  });

  it("is off without the header or a key setting, and `off` wins over the key", async () => {
    four.fakes.openai.reset({ text: "Uncached" });
    const a = await call(chat, { prompt: "plain", stream: false });
    expect(a.headers[CACHE_HEADER]).toBeUndefined();
    const b = await call(chat, { prompt: "plain", stream: false, key: "on", header: "off" });
    expect(b.headers[CACHE_HEADER]).toBeUndefined();
    expect(cacheScopeFor({}, null, "org_a", db)).toBeNull();
  });

  it("stores sealed answers and deletes them once expired", async () => {
    const rows = await db.select().from(responseCache);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.value).not.toContain("Four");
    expect(await deleteExpiredCacheEntries(db, Date.now() + 8 * 86_400_000)).toBe(rows.length);
  });
});
