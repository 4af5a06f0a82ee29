/**
 * Malformed input on the public API as plain `fetch` sends it: every case is a 4xx envelope
 * naming the problem (and the field), never a 500, with an x-request-id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let key: string;
let email: string;
beforeAll(async () => {
  server = await startTestServer();
  ({ key, email } = await createAccount(server, { usd: 1 }));
});
afterAll(() => server?.dispose());

const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: body as BodyInit,
  });
const user = [{ role: "user", content: "hi" }];

describe("malformed input", () => {
  it.each<[string, string, string, string | undefined, RegExp]>([
    ["chat: not JSON", "/v1/chat/completions", "{", undefined, /not valid JSON/],
    ["chat: an array", "/v1/chat/completions", "[]", undefined, /JSON object/],
    ["chat: missing messages", "/v1/chat/completions", JSON.stringify({ model: "demo-chat" }), "messages", /messages/],
    ["chat: messages not an array", "/v1/chat/completions", JSON.stringify({ model: "demo-chat", messages: "hi" }), "messages", /messages/],
    ["chat: model a number", "/v1/chat/completions", JSON.stringify({ model: 5, messages: user }), "model", /model/],
    ["chat: temperature a string", "/v1/chat/completions", JSON.stringify({ model: "demo-chat", messages: user, temperature: "hot" }), "temperature", /temperature/],
    ["chat: negative max_tokens", "/v1/chat/completions", JSON.stringify({ model: "demo-chat", messages: user, max_tokens: -5 }), "max_tokens", /max_tokens/],
    ["embeddings: missing input", "/v1/embeddings", JSON.stringify({ model: "demo-embed" }), "input", /input/],
    ["embeddings: not JSON", "/v1/embeddings", "model=demo-embed", undefined, /JSON/],
  ])("%s → 400 invalid_request", async (_name, path, body, param, message) => {
    const r = await post(path, body);
    expect(r.status).toBe(400);
    expect(r.headers.get("x-request-id")).toMatch(/^req_/);
    expect(r.headers.get("x-should-retry")).toBe("false");
    const { error } = await r.json();
    expect(error.type).toBe("invalid_request");
    expect(error.code).toBe("invalid_request");
    expect(error.message).toMatch(message);
    if (param) expect(error.param).toBe(param);
  });

  it("answers a body over the route's limit with 413 payload_too_large", async () => {
    const r = await post("/v1/embeddings", Buffer.alloc(9 * 1024 * 1024, 0x61));
    expect(r.status).toBe(413);
    const { error } = await r.json();
    expect(error).toMatchObject({ type: "invalid_request", code: "payload_too_large" });
  });

  it("answers a model of the wrong kind with model_not_supported, an unknown one with model_not_found", async () => {
    const wrong = await post("/v1/chat/completions", JSON.stringify({ model: "demo-embed", messages: user }));
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error.code).toBe("model_not_supported");
    const unknown = await post("/v1/chat/completions", JSON.stringify({ model: "no-such-model", messages: user }));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("model_not_found");
  });

  it("charged nothing for any of it", async () => {
    expect(await balanceUsd(server, email)).toBe(1);
  });
});
