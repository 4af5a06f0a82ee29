/**
 * When a stream's settlement starts (decision 0006): where the process outlives the reply, after
 * the client's last bytes are written; elsewhere (a runtime that may freeze once it has answered)
 * before the stream ends. Either way exactly once, at the cost the final usage event showed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFourTextFakes, type FourTextFakes } from "../../../tests/fakes/four-text-upstreams";
import { errors } from "../errors";
import { chatCompletions } from "../protocols";
import { handleText } from "./text-handler";
import type { Settlement } from "../../billing/port";

let four: FourTextFakes;
beforeAll(async () => {
  four = await startFourTextFakes();
});
afterAll(async () => {
  await four?.close();
});

async function streamOnce(settleAfterReply: boolean) {
  const settled: Settlement[] = [];
  const route = four.route("openai");
  four.fakes.openai.reset({ text: "Hello there" });
  const r = await handleText(
    {
      protocol: chatCompletions,
      body: { model: "m-openai", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Hi" }] },
      bodyBytes: 100,
      signal: new AbortController().signal,
      startedAt: performance.now(),
      settleAfterReply,
    },
    {
      resolveRoutes: async (model) => (model === "m-openai" ? { ok: true, value: { routes: [route] } } : { ok: false, error: errors.modelNotFound(model) }),
      billing: {
        reserve: async (amount) => ({ ok: true, hold: { kind: "row", holdId: "h", amountMicroUsd: amount } }),
        settle: async (_hold, s) => {
          settled.push(s);
          return { chargedMicroUsd: s.costMicroUsd, balanceAfterMicroUsd: null };
        },
      },
    },
  );
  expect(r.status).toBe(200);
  let text = "";
  for await (const s of r.body as AsyncIterable<string>) text += s;
  const atEnd = settled.length;
  await new Promise((done) => setImmediate(done));
  const cost = /"cost_usd":([\d.e-]+)/.exec(text)?.[1];
  return { text, atEnd, settled, cost: cost === undefined ? undefined : Math.round(Number(cost) * 1_000_000) };
}

describe("a stream's settlement", () => {
  it("starts after the last bytes where the process outlives the reply, once, at the cost the client was shown", async () => {
    const s = await streamOnce(true);
    expect(s.text).toContain("[DONE]");
    expect(s.atEnd).toBe(0);
    expect(s.settled).toHaveLength(1);
    expect(s.settled[0]!.log).toMatchObject({ settlement: "completed", status: 200, stream: true });
    expect(s.cost).toBeGreaterThan(0);
    expect(s.settled[0]!.costMicroUsd).toBe(s.cost);
  });

  it("is done before the stream ends where the runtime may freeze after answering", async () => {
    const s = await streamOnce(false);
    expect(s.text).toContain("[DONE]");
    expect(s.atEnd).toBe(1);
    expect(s.settled).toHaveLength(1);
    expect(s.settled[0]!.costMicroUsd).toBe(s.cost);
  });
});
