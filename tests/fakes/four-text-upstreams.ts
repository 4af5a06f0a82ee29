/** The four text fakes (OpenAI chat, Anthropic, Gemini, OpenAI Responses) and a route to each, for codec tests. */
import { afterAll, beforeAll } from "vitest";
import type { ModelRoute } from "../../lib/gateway/model-route";
import { startTestHost, type TestHost } from "./text-test-host";
import { ANTHROPIC_FAKE_KEY, startFakeAnthropic } from "./anthropic-upstream";
import { GEMINI_FAKE_KEY, startFakeGemini } from "./gemini-upstream";
import { OPENAI_RESPONSES_FAKE_KEY, startFakeOpenAIResponses } from "./openai-responses-upstream";
import { OPENAI_FAKE_KEY, startFakeOpenAI } from "./openai-upstream";
import type { FakeTextUpstream } from "./text-fake-core";

export type Up = "openai" | "anthropic" | "gemini" | "responses";
export const UPS = ["openai", "anthropic", "gemini", "responses"] as const;

export interface FourTextFakes {
  fakes: Record<Up, FakeTextUpstream>;
  /** The model `m-<up>` served by that fake (1 USD per input token, 2 per output token). */
  route(up: Up): ModelRoute;
  close(): Promise<void>;
}

export async function startFourTextFakes(): Promise<FourTextFakes> {
  const fakes: Record<Up, FakeTextUpstream> = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini(), responses: await startFakeOpenAIResponses() };
  const upstream = { openai: ["openai", OPENAI_FAKE_KEY], anthropic: ["anthropic", ANTHROPIC_FAKE_KEY], gemini: ["gemini", GEMINI_FAKE_KEY], responses: ["openai-responses", OPENAI_RESPONSES_FAKE_KEY] } as const;
  return {
    fakes,
    route: (up) => ({
      rowId: `row-${up}`,
      modelId: `m-${up}`,
      kind: "text",
      family: null,
      ownedBy: "test",
      upstreamModel: `${up}-fake`,
      price: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 },
      defaultMaxTokens: 1000,
      strict: false,
      upstream: { id: `u-${up}`, protocol: upstream[up][0], baseUrl: fakes[up].baseUrl, apiKey: upstream[up][1], timeoutMs: 5000 },
    }),
    async close() {
      for (const f of Object.values(fakes)) await f.close();
    },
  };
}

/**
 * For a test file: the four fakes and a test host serving `m-<up>` from each (and the `more`
 * routes), started before its tests and closed after them. Read `fakes` and `host` inside tests.
 */
export function useFourTextHost(more: (route: FourTextFakes["route"]) => Record<string, ModelRoute[]> = () => ({})): { fakes: FourTextFakes["fakes"]; host: TestHost } {
  let four: FourTextFakes | undefined;
  let host: TestHost | undefined;
  beforeAll(async () => {
    four = await startFourTextFakes();
    host = await startTestHost({ ...Object.fromEntries(UPS.map((u) => [`m-${u}`, [four!.route(u)]])), ...more(four.route) });
  });
  afterAll(async () => {
    await host?.close();
    await four?.close();
  });
  return {
    get fakes() {
      return four!.fakes;
    },
    get host() {
      return host!;
    },
  };
}
