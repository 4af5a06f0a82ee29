/**
 * Decision 0033: what the request path builds for each request shares its hidden classes with
 * the previous request's. An object with a map of its own (an AbortSignal on Node 20, a spread
 * copy that gained keys) ties the request's objects to the old generation until a full
 * collection. Each case is warmed up first: V8 starts handing out per-object maps only once the
 * code has run a few times.
 */
import v8 from "node:v8";
import { beforeAll, describe, expect, it } from "vitest";
import { ClientSignal } from "../net/client-signal";
import type { CanonicalRequest } from "./canonical";
import { parseJsonBody } from "./body";
import type { ModelRoute } from "./model-route";
import { failover } from "./upstreams/failover";
import { openaiChat } from "./upstreams/openai-chat";
import { openaiResponses } from "./upstreams/openai-responses";
import { renderResponsesResponse } from "./protocols/responses/render";
import { normalizeItem } from "./stored-responses/history";

let sameMap: (a: unknown, b: unknown) => boolean;
beforeAll(() => {
  v8.setFlagsFromString("--allow-natives-syntax");
  sameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as typeof sameMap;
  v8.setFlagsFromString("--no-allow-natives-syntax");
});

/** Builds the object 200 times; the last two must share a map. */
async function sharesMap(make: (i: number) => unknown): Promise<boolean> {
  let prev: unknown = null;
  let last: unknown = null;
  for (let i = 0; i < 200; i++) {
    prev = last;
    last = await make(i);
  }
  return sameMap(prev, last);
}

const route: ModelRoute = {
  rowId: "r1",
  modelId: "m",
  kind: "text",
  family: null,
  ownedBy: "test",
  upstreamModel: "up-m",
  price: { inputPerMTok: 1, outputPerMTok: 2 },
  defaultMaxTokens: 256,
  strict: false,
  upstream: { id: "u", protocol: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-x", timeoutMs: null },
};
const req = (stream: boolean): CanonicalRequest => ({ model: "m", stream, maxOutputTokens: 100, messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] });

describe("hidden classes per request (decision 0033)", () => {
  it("the client's signal: one map for all requests", async () => {
    expect(await sharesMap(() => new ClientSignal())).toBe(true);
  });

  it("failover's outcome", async () => {
    expect(await sharesMap(() => failover(["a"], async () => ({ ok: true as const, value: 1 })))).toBe(true);
    expect(await sharesMap(() => failover(["a"], async () => ({ ok: false as const, retryable: false, error: { status: 400, type: "invalid_request", code: "x", message: "m" } })))).toBe(true);
  });

  it("a passthrough body that gains the gateway's fields (stream_options, the output cap)", async () => {
    const raw = () => ({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true });
    const chat = (i: number) => {
      const p = openaiChat.prepare(route, req(true), raw(), {});
      if (!p.ok) throw new Error(String(i));
      return p.value.body;
    };
    expect(await sharesMap(chat)).toBe(true);
    const responses = () => {
      const p = openaiResponses.prepare(route, req(false), { model: "m", input: "hi" }, {});
      if (!p.ok) throw new Error("refused");
      return p.value.body;
    };
    expect(await sharesMap(responses)).toBe(true);
  });

  it("a Responses answer, and a stored conversation's items", async () => {
    const answer = () =>
      renderResponsesResponse(
        { id: "r", model: "up-m", content: [{ type: "text", text: "hello" }], stopReason: "end", stopSequence: null, usage: { inputTokens: 3, outputTokens: 2 } },
        { model: "m", request: req(false), costMicroUsd: 5 },
      );
    expect(await sharesMap(answer)).toBe(true);
    expect(await sharesMap(() => normalizeItem({ role: "user", content: "hi" }))).toBe(true);
  });

  it("a parsed body's members, which carry their source bytes", async () => {
    const members = () => {
      const r = parseJsonBody(Buffer.from('{"model":"m","messages":[{"role":"user","content":"hi"}]}'));
      if (!r.ok) throw new Error("invalid");
      return (r.value as { messages: unknown }).messages;
    };
    expect(await sharesMap(members)).toBe(true);
  });
});
