/**
 * The text matrix against the real server (`npm start` as a child process, fresh database):
 * 4 inbound protocols through their official SDKs × 3 upstream protocols, plain, streamed and
 * tool calling, asserting what the client got and what each fake upstream received.
 */
import { afterAll, beforeAll } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic-upstream";
import { startFakeGemini } from "./fakes/gemini-upstream";
import { startFakeOpenAI } from "./fakes/openai-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { textGatewayConfig, textFakeUrls } from "./text-config";
import { defineTextMatrix } from "./text-matrix-cases";

let server: TestServer;
let fakes: Record<"openai" | "anthropic" | "gemini", FakeTextUpstream>;
let key: string;

beforeAll(async () => {
  fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
  server = await startTestServer({
    config: textGatewayConfig(textFakeUrls(fakes)),
  });
  ({ key } = await createAccount(server, { usd: 10 }));
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
});

const UPSTREAM_MODEL = { openai: "gpt-fake", anthropic: "claude-fake", gemini: "gemini-fake" } as const;

defineTextMatrix(() => ({
  url: server.url,
  key,
  fakes,
  model: (up) => `chat-${up}`,
  upstreamModel: (up) => UPSTREAM_MODEL[up],
  price: { input: 1, output: 2 },
}));
