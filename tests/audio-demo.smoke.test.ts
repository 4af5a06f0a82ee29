/**
 * Smoke (runs on PGlite too): the built-in demo catalog's `demo-tts` and `demo-stt` through the
 * official openai SDK, offline, billed like any upstream: the speech it makes is transcribed
 * back, and an `srt` of the file costs what its `json` does. No fakes, no direct SQL.
 */
import { parseBuffer } from "music-metadata";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

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

const micro = (usd: number) => Math.round(usd * 1_000_000);

describe("demo audio models, offline", () => {
  it("speaks, and the speech transcribes back at the per-second price, the same for srt and json", async () => {
    let before = await balanceUsd(server, email);
    const input = "Offline speech from the demo upstream.";
    const wav = Buffer.from(await (await client.audio.speech.create({ model: "demo-tts", voice: "alloy", input, response_format: "wav" })).arrayBuffer());
    const seconds = (await parseBuffer(wav, { mimeType: "audio/wav" }, { duration: true })).format.duration!;
    expect(seconds).toBeGreaterThan(1);
    // $15 per million characters.
    expect(micro(before - (await balanceUsd(server, email)))).toBe(Math.ceil(input.length * 15));

    const costs: number[] = [];
    for (const response_format of ["json", "srt"] as const) {
      before = await balanceUsd(server, email);
      const { data, response } = await client.audio.transcriptions.create({ model: "demo-stt", file: await toFile(wav, "speech.wav", { type: "audio/wav" }), response_format }).withResponse();
      expect(JSON.stringify(data)).toMatch(response_format === "json" ? /Demo transcript of \d+\.\d seconds/ : /00:00:00,000 --> /);
      const cost = micro(Number(response.headers.get("x-gateway-cost-usd")));
      expect(micro(before - (await balanceUsd(server, email)))).toBe(cost);
      costs.push(cost);
    }
    expect(costs[0]).toBe(Math.ceil(Math.round(seconds * 1000) * 0.1)); // $0.0001 a second
    expect(costs[1]).toBe(costs[0]);
  });
});
