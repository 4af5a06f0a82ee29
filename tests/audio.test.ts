/**
 * /v1/audio through the official openai SDK against the real server: the demo upstream
 * (offline), the fake OpenAI audio upstream and the fake Gemini one. Speech streamed to a file
 * and decoded; every transcription format; translations; the books checked (header, balance,
 * ledger, log row); an srt transcription billed as a json one; failures refunded; 413 and 402.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseBuffer } from "music-metadata";
import { GoogleGenAI } from "@google/genai";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FAKE_AUDIO_KEY, FAKE_GEMINI_AUDIO_KEY, fakeMp3, fakePcm, startFakeAudio, wav, type FakeAudio } from "./fakes/audio-upstream";
import { balanceUsd, createAccount } from "./support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "./support/server";

let server: TestServer;
let fake: FakeAudio;
let client: OpenAI;
let email: string;
let key: string;

const micro = (usd: number) => Math.round(usd * 1_000_000);

beforeAll(async () => {
  fake = await startFakeAudio();
  server = await startTestServer({
    config: {
      upstreams: [
        { id: "oa", protocol: "openai", baseUrl: fake.baseUrl, apiKey: FAKE_AUDIO_KEY },
        { id: "ge", protocol: "gemini", baseUrl: fake.geminiBaseUrl, apiKey: FAKE_GEMINI_AUDIO_KEY },
        { id: "demo", protocol: "demo" },
      ],
      models: [
        { id: "demo-tts", kind: "speech", upstream: "demo", price: { perMCharacters: 15 } },
        { id: "demo-stt", kind: "transcription", upstream: "demo", price: { perSecond: 0.0001 } },
        { id: "tts-1", kind: "speech", upstream: "oa", price: { perMCharacters: 15 } },
        { id: "tts-seconds", kind: "speech", upstream: "oa", upstreamModel: "tts-1", price: { perSecond: 0.001 } },
        { id: "gpt-4o-mini-tts", kind: "speech", upstream: "oa", price: { inputPerMTok: 0.6, audioOutputPerMTok: 12 } },
        { id: "whisper-1", kind: "transcription", upstream: "oa", price: { perSecond: 0.0001 } },
        { id: "gpt-4o-transcribe", kind: "transcription", upstream: "oa", price: { inputPerMTok: 2.5, audioInputPerMTok: 6, outputPerMTok: 10 } },
        { id: "gemini-tts", kind: "speech", upstream: "ge", upstreamModel: "gemini-2.5-flash-preview-tts", price: { inputPerMTok: 0.5, audioOutputPerMTok: 10 } },
        { id: "gemini-stt", kind: "transcription", upstream: "ge", upstreamModel: "gemini-2.5-flash", price: { inputPerMTok: 0.3, audioInputPerMTok: 1, outputPerMTok: 2.5 } },
        { id: "demo-chat", kind: "text", upstream: "demo", price: { inputPerMTok: 0.5, outputPerMTok: 1.5 }, defaultMaxTokens: 256 },
      ],
    },
  });
  ({ email, key } = await createAccount(server, { usd: 20 }));
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.script.speechPauseMs = 0;
  fake.script.breakSpeechAfter = undefined;
});

const logRow = async (id: string | null) =>
  (await server.query<{ cost: string; settlement: string; status: number; audio_ms: number | null }>("select cost_micro_usd as cost, settlement, status, audio_ms from request_logs where request_id = $1", [id]))[0]!;

/**
 * The charge of one answer, checked against the balance, the ledger and the log row. Streamed
 * speech has no cost header (its cost is known when the audio ends): the log row tells it.
 */
async function books(response: Response, before: number, expectRow?: Record<string, unknown>) {
  const id = response.headers.get("x-request-id");
  const told = response.headers.get("x-gateway-cost-usd");
  const cost = told !== null ? micro(Number(told)) : Number((await server.query<{ c: string }>("select cost_micro_usd as c from request_logs where request_id = $1", [id]))[0]!.c);
  expect(micro(before - (await balanceUsd(server, email)))).toBe(cost);
  if (usesPostgres()) {
    const ledger = await server.query<{ delta_micro_usd: string }>("select delta_micro_usd from ledger_entries where request_id = $1 and kind = 'charge'", [id]);
    expect(ledger.map((r) => Number(r.delta_micro_usd))).toEqual(cost ? [-cost] : []);
    const rows = await server.query<Record<string, unknown>>(
      "select cost_micro_usd, audio_ms, input_characters, input_tokens, output_tokens, audio_input_tokens, audio_output_tokens, settlement from request_logs where request_id = $1",
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.cost_micro_usd)).toBe(cost);
    if (expectRow) expect(rows[0]).toMatchObject(expectRow);
  }
  return cost;
}

const oneSecondWav = () => wav(fakePcm(1000));
const fiveSecondMp3 = () => fakeMp3(Math.round(5000 / 26.122448979591837)); // 191 frames ≈ 4.989 s

describe("speech", () => {
  it("demo-tts: streamed to a file, a real WAV, billed per character", async () => {
    const before = await balanceUsd(server, email);
    const input = "Hello from the demo speech model.";
    const { data, response } = await client.audio.speech.create({ model: "demo-tts", voice: "alloy", input, response_format: "wav" }).withResponse();
    const path = join(await mkdtemp(join(tmpdir(), "speech-")), "out.wav");
    await pipeline(Readable.fromWeb(data.body as never), createWriteStream(path));
    const meta = await parseBuffer(await readFile(path), { mimeType: "audio/wav" }, { duration: true });
    expect(meta.format.sampleRate).toBe(24_000);
    expect(meta.format.duration).toBeGreaterThan(1);
    expect(response.headers.get("content-type")).toBe("audio/wav");
    const cost = await books(response, before, { input_characters: input.length, settlement: "completed" });
    expect(cost).toBe(Math.ceil((input.length * 15_000_000) / 1_000_000));
  });

  it("demo-tts: the SDK's default mp3, decodable, its length what was measured, billed per character", async () => {
    const before = await balanceUsd(server, email);
    const input = "Hello from the demo speech model.";
    const { data, response } = await client.audio.speech.create({ model: "demo-tts", voice: "alloy", input }).withResponse();
    const bytes = Buffer.from(await data.arrayBuffer());
    expect(response.headers.get("content-type")).toBe("audio/mpeg");
    const meta = await parseBuffer(bytes, { mimeType: "audio/mpeg" }, { duration: true });
    expect(meta.format.codec).toBe("MPEG 1 Layer 3");
    expect(meta.format.duration).toBeGreaterThan(1);
    // The log's seconds are the ones decoded from what was sent.
    const cost = await books(response, before, { input_characters: input.length, settlement: "completed", audio_ms: Math.round(meta.format.duration! * 1000) });
    expect(cost).toBe(Math.ceil((input.length * 15_000_000) / 1_000_000));
  });

  it("demo-tts refuses a format it cannot make, naming it, and charges nothing", async () => {
    const before = await balanceUsd(server, email);
    const err = await client.audio.speech.create({ model: "demo-tts", voice: "alloy", input: "hi", response_format: "opus" }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.param).toBe("response_format");
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("tts-1 on OpenAI: the vendor's request, a decodable MP3, per-character price", async () => {
    const before = await balanceUsd(server, email);
    const input = "The quick brown fox jumps over the lazy dog.";
    const { data, response } = await client.audio.speech.create({ model: "tts-1", voice: "coral", input, speed: 1.5 }).withResponse();
    const bytes = Buffer.from(await data.arrayBuffer());
    expect((await parseBuffer(bytes, { mimeType: "audio/mpeg" }, { duration: true })).format.codec).toMatch(/MPEG/);
    expect(fake.requests[0]!.body).toEqual({ model: "tts-1", input, voice: "coral", response_format: "mp3", speed: 1.5 });
    expect(await books(response, before)).toBe(Math.ceil((input.length * 15_000_000) / 1_000_000));
  });

  it("gpt-4o-mini-tts: asked for SSE upstream, billed on the reported text-in and audio-out tokens", async () => {
    const before = await balanceUsd(server, email);
    const input = "Token priced speech.";
    const { data, response } = await client.audio.speech.create({ model: "gpt-4o-mini-tts", voice: "alloy", input, response_format: "pcm", instructions: "calm" }).withResponse();
    const bytes = Buffer.from(await data.arrayBuffer());
    const ms = (input.length * 70);
    expect(bytes.length).toBe(Math.round(ms * 24) * 2);
    expect(fake.requests[0]!.body).toMatchObject({ stream_format: "sse", instructions: "calm" });
    const textIn = Math.ceil(input.length / 4);
    const audioOut = Math.ceil((ms / 1000) * 21);
    const cost = await books(response, before, { input_tokens: String(textIn), output_tokens: String(audioOut), audio_output_tokens: String(audioOut) });
    expect(cost).toBe(Math.ceil(textIn * 0.6 + audioOut * 12));
  });

  it("streams the audio as the upstream makes it: the first bytes arrive before the upstream has finished", async () => {
    fake.script.speechPauseMs = 40;
    const sent = fake.speechSent;
    const before = await balanceUsd(server, email);
    const input = "A sentence long enough to take a while to send, piece by piece.";
    const res = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input }).asResponse();
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.value!.length).toBeGreaterThan(0);
    expect(fake.speechSent).toBe(sent); // the upstream is still sending
    while (!(await reader.read()).done);
    expect(fake.speechSent).toBe(sent + 1);
    expect(res.headers.get("x-gateway-cost-usd")).toBeNull(); // known when the audio has ended
    expect(await books(res, before, { settlement: "completed" })).toBe(Math.ceil(input.length * 15));
  });

  it("a per-second speech model is billed on the duration decoded from the audio it produced", async () => {
    const before = await balanceUsd(server, email);
    const input = "Seconds, not characters.";
    const res = await client.audio.speech.create({ model: "tts-seconds", voice: "alloy", input }).asResponse();
    const bytes = Buffer.from(await res.arrayBuffer());
    const ms = Math.round((await parseBuffer(bytes, { mimeType: "audio/mpeg" }, { duration: true })).format.duration! * 1000);
    expect(await books(res, before, { audio_ms: ms })).toBe(Math.ceil(ms * 1)); // 0.001 USD = 1000 µUSD a second
  });

  it("an upstream that breaks off mid-stream is refunded, and the log row says so", async () => {
    fake.script.breakSpeechAfter = 8192;
    fake.script.speechPauseMs = 30; // the first pieces reach the client before the break
    const before = await balanceUsd(server, email);
    const res = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: "This answer will break off in the middle of the audio stream." }).asResponse();
    expect(res.status).toBe(200);
    await res.arrayBuffer().catch(() => null);
    expect(await balanceUsd(server, email)).toBe(before);
    expect(await logRow(res.headers.get("x-request-id"))).toMatchObject({ cost: "0", settlement: "upstream_error" });
  });

  it("a client that leaves mid-stream pays for what the upstream made (per character: all of it)", async () => {
    fake.script.speechPauseMs = 50;
    const before = await balanceUsd(server, email);
    const input = "The client will hang up before this audio has been sent.";
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "tts-1", voice: "alloy", input }),
      signal: controller.signal,
    });
    await res.body!.getReader().read();
    controller.abort();
    const id = res.headers.get("x-request-id");
    let row;
    for (let i = 0; i < 100 && !(row = (await server.query<{ settlement: string; cost: string }>("select settlement, cost_micro_usd as cost from request_logs where request_id = $1", [id]))[0]); i++) await new Promise((r) => setTimeout(r, 50));
    expect(row).toMatchObject({ settlement: "client_disconnect", cost: String(Math.ceil(input.length * 15)) });
    expect(micro(before - (await balanceUsd(server, email)))).toBe(Math.ceil(input.length * 15));
  });

  it("stream_format sse answers OpenAI's speech events with the usage", async () => {
    const res = await fetch(`${server.url}/v1/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini-tts", voice: "alloy", input: "Streamed speech.", response_format: "pcm", stream_format: "sse" }),
    });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const events = (await res.text()).trim().split("\n\n").map((e) => JSON.parse(e.slice(6)));
    expect(events.at(-1)).toMatchObject({ type: "speech.audio.done", usage: { input_tokens: 4 }, cost_usd: expect.any(String) });
    expect(micro(Number(events.at(-1).cost_usd))).toBe(Number((await logRow(res.headers.get("x-request-id"))).cost));
    const audio = Buffer.concat(events.slice(0, -1).map((e) => Buffer.from(e.audio, "base64")));
    expect(audio.length).toBe(Math.round("Streamed speech.".length * 70 * 24) * 2);
  });

  it("Gemini TTS: generateContent with AUDIO and the voice, PCM wrapped as WAV, billed per modality", async () => {
    const before = await balanceUsd(server, email);
    const input = "Hello from Gemini.";
    const { data, response } = await client.audio.speech.create({ model: "gemini-tts", voice: "Kore", input, response_format: "wav" }).withResponse();
    const meta = await parseBuffer(Buffer.from(await data.arrayBuffer()), { mimeType: "audio/wav" }, { duration: true });
    expect(meta.format.duration).toBeCloseTo((input.length * 60) / 1000, 2);
    expect(fake.requests[0]!.body).toMatchObject({ generationConfig: { responseModalities: ["AUDIO"], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Kore" } } } } });
    const textIn = Math.ceil(input.length / 4);
    const audioOut = Math.ceil(((input.length * 60) / 1000) * 25);
    expect(await books(response, before)).toBe(Math.ceil(textIn * 0.5 + audioOut * 10));
    // An OpenAI voice is converted; mp3 cannot be made from Gemini's PCM: a 400 naming it.
    await client.audio.speech.create({ model: "gemini-tts", voice: "alloy", input, response_format: "pcm" });
    expect((fake.requests.at(-1)!.body as any).generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName).toBe("Zephyr");
    const err = await client.audio.speech.create({ model: "gemini-tts", voice: "Kore", input }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.param).toBe("response_format");
  });

  it("refuses unknown parameters and a chat model, by name", async () => {
    const err = await client.audio.speech.create({ model: "demo-tts", voice: "alloy", input: "x", response_format: "wav", pitch: 3 } as never).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.param).toBe("pitch");
    const other = await client.audio.speech.create({ model: "demo-chat", voice: "alloy", input: "x" }).catch((e) => e);
    expect(other.status).toBe(400);
    expect(other.message).toMatch(/text model/);
  });
});

describe("speech through @google/genai (generateContent on a speech model)", () => {
  const google = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
  const tts = (model: string, voiceName = "Kore") =>
    google().models.generateContent({ model, contents: "Read this aloud.", config: { responseModalities: ["AUDIO" as never], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName } } } } });

  it.each([
    ["the demo upstream", "demo-tts"],
    ["a Gemini upstream", "gemini-tts"],
    ["an OpenAI upstream (the Gemini voice converted back)", "gpt-4o-mini-tts"],
  ])("answers Gemini's PCM inlineData from %s, billed like /v1/audio/speech", async (_name, model) => {
    const before = await balanceUsd(server, email);
    const res = await tts(model);
    const data = res.candidates![0]!.content!.parts![0]!.inlineData!;
    expect(data.mimeType).toBe("audio/L16;codec=pcm;rate=24000");
    const pcm = Buffer.from(data.data!, "base64");
    expect(pcm.length).toBeGreaterThan(24_000); // over half a second of 16-bit samples
    const cost = micro(Number((res.usageMetadata as { costUsd?: string }).costUsd));
    expect(cost).toBeGreaterThan(0);
    expect(micro(before - (await balanceUsd(server, email)))).toBe(cost);
    if (model === "gpt-4o-mini-tts") expect(fake.requests[0]!.body).toMatchObject({ voice: "coral", response_format: "pcm" });
    if (model === "gemini-tts") expect(res.usageMetadata).toMatchObject({ candidatesTokensDetails: [{ modality: "AUDIO" }] });
  });

  it("refuses what the speech path has no counterpart for, by name", async () => {
    const err = await google()
      .models.generateContent({ model: "demo-tts", contents: "x", config: { responseModalities: ["AUDIO" as never], temperature: 0.3 } })
      .catch((e) => e);
    expect(String(err.message)).toMatch(/generationConfig\.temperature/);
  });
});

describe("transcription", () => {
  const formats = ["json", "text", "srt", "vtt", "verbose_json"] as const;

  it.each(formats)("demo-stt answers %s and bills the decoded duration, the same for every format", async (format) => {
    const before = await balanceUsd(server, email);
    const { data, response } = await client.audio.transcriptions
      .create({ model: "demo-stt", file: await toFile(fiveSecondMp3(), "talk.mp3", { type: "audio/mpeg" }), response_format: format })
      .withResponse();
    const text = typeof data === "string" ? data : JSON.stringify(data);
    expect(text).toContain(format === "json" || format === "text" || format === "verbose_json" ? "Demo transcript of 5.0 seconds" : "Demo transcript, part 1.");
    if (format === "srt") expect(text).toMatch(/^1\n00:00:00,000 --> 00:00:04,989\n/);
    if (format === "vtt") expect(text).toMatch(/^WEBVTT\n\n00:00:00.000 --> 00:00:04.989\n/);
    if (format === "verbose_json") expect((data as any).duration).toBeCloseTo(4.989, 2);
    const cost = await books(response, before, { audio_ms: 4989 });
    expect(cost).toBe(Math.ceil(4989 * 0.1)); // 100 µUSD a second
  });

  it("whisper-1 on OpenAI: srt rendered from verbose_json, billed exactly as json", async () => {
    const file = oneSecondWav();
    let before = await balanceUsd(server, email);
    const json = await client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(file, "a.wav", { type: "audio/wav" }) }).withResponse();
    const jsonCost = await books(json.response, before);
    expect(json.data.text).toBe("Heard 1.0 seconds of a.wav.");
    expect(fake.requests[0]!.body).toMatchObject({ model: "whisper-1", response_format: "json", file: { name: "a.wav", type: "audio/wav", size: file.length } });
    before = await balanceUsd(server, email);
    const srt = await client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(file, "a.wav", { type: "audio/wav" }), response_format: "srt" }).withResponse();
    expect(fake.requests[1]!.body).toMatchObject({ response_format: "verbose_json" });
    expect(srt.data).toBe("1\n00:00:00,000 --> 00:00:00,500\nFirst half.\n\n2\n00:00:00,500 --> 00:00:01,000\nSecond half.\n");
    expect(await books(srt.response, before)).toBe(jsonCost);
    expect(jsonCost).toBe(100);
  });

  it("gpt-4o-transcribe: billed on the reported token classes; streamed as transcript events", async () => {
    const before = await balanceUsd(server, email);
    const { data, response } = await client.audio.transcriptions.create({ model: "gpt-4o-transcribe", file: await toFile(oneSecondWav(), "b.wav", { type: "audio/wav" }), prompt: "names" }).withResponse();
    expect(data.usage).toEqual({ type: "tokens", input_tokens: 15, input_token_details: { text_tokens: 5, audio_tokens: 10 }, output_tokens: 9, total_tokens: 24 });
    expect(await books(response, before, { input_tokens: "15", audio_input_tokens: "10", output_tokens: "9" })).toBe(Math.ceil(5 * 2.5 + 10 * 6 + 9 * 10));

    fake.script.speechPauseMs = 60;
    const sent = fake.transcriptsSent;
    const stream = await client.audio.transcriptions.create({ model: "gpt-4o-transcribe", file: await toFile(oneSecondWav(), "b.wav", { type: "audio/wav" }), stream: true });
    const events: any[] = [];
    for await (const ev of stream) {
      // Relayed as the upstream makes them: the first delta arrives before the upstream's last.
      if (!events.length) expect(fake.transcriptsSent).toBe(sent);
      events.push(ev);
    }
    expect(fake.requests.at(-1)!.body).toMatchObject({ stream: "true", response_format: "json" });
    expect(events.filter((e) => e.type === "transcript.text.delta").map((e) => e.delta)).toEqual(["Heard ", "1.0 ", "seconds ", "of ", "b.wav. "]); // the upstream's own deltas
    expect(events.at(-1)).toMatchObject({ type: "transcript.text.done", text: "Heard 1.0 seconds of b.wav.", usage: { type: "tokens" }, cost_usd: "0.000163" });
    // whisper-1 has no events: its JSON answer comes back as events all the same, billed per second.
    const whisper = await client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(oneSecondWav(), "w.wav", { type: "audio/wav" }), stream: true });
    const got: any[] = [];
    for await (const ev of whisper) got.push(ev);
    expect(got.at(-1)).toMatchObject({ type: "transcript.text.done", text: "Heard 1.0 seconds of w.wav.", usage: { type: "duration", seconds: 1 }, cost_usd: "0.0001" });
  });

  it("a format the vendor refuses is its 400, with nothing charged", async () => {
    const before = await balanceUsd(server, email);
    const err = await client.audio.transcriptions.create({ model: "gpt-4o-transcribe", file: await toFile(oneSecondWav(), "b.wav", { type: "audio/wav" }), response_format: "srt" }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("Gemini: generateContent with the audio part, billed per modality", async () => {
    const before = await balanceUsd(server, email);
    const { data, response } = await client.audio.transcriptions.create({ model: "gemini-stt", file: await toFile(oneSecondWav(), "c.wav", { type: "audio/wav" }), response_format: "verbose_json" }).withResponse();
    expect((data as any).text).toBe("Gemini heard 1.0 seconds.");
    const parts = (fake.requests[0]!.body as any).contents[0].parts;
    expect(parts[0].inlineData.mimeType).toBe("audio/wav");
    expect(Buffer.from(parts[0].inlineData.data, "base64").length).toBe(oneSecondWav().length);
    expect(await books(response, before, { audio_input_tokens: "32" })).toBe(Math.ceil(12 * 0.3 + 32 * 1 + 7 * 2.5));
  });

  it("translations: whisper-1 on OpenAI and the demo", async () => {
    const before = await balanceUsd(server, email);
    const { data, response } = await client.audio.translations.create({ model: "whisper-1", file: await toFile(oneSecondWav(), "d.wav", { type: "audio/wav" }) }).withResponse();
    expect(data.text).toBe("Translated 1.0 seconds of d.wav.");
    expect(fake.requests[0]!.path).toBe("/v1/audio/translations");
    expect(await books(response, before)).toBe(100);
    const demo = await client.audio.translations.create({ model: "demo-stt", file: await toFile(oneSecondWav(), "d.wav", { type: "audio/wav" }), response_format: "text" });
    expect(demo).toContain("Demo translation of 1.0 seconds");
  });

  it("a file over 25 MB is a 413 naming the limit; bytes that are not audio are a 400; nothing charged", async () => {
    const before = await balanceUsd(server, email);
    const big = await client.audio.transcriptions.create({ model: "demo-stt", file: await toFile(Buffer.alloc(25 * 1024 * 1024 + 1), "big.wav", { type: "audio/wav" }) }).catch((e) => e);
    expect(big.status).toBe(413);
    expect(big.message).toMatch(/25 MB/);
    const junk = await client.audio.transcriptions.create({ model: "demo-stt", file: await toFile(Buffer.from("not audio at all"), "x.txt", { type: "text/plain" }) }).catch((e) => e);
    expect(junk.status).toBe(400);
    expect(junk.param).toBe("file");
    expect(await balanceUsd(server, email)).toBe(before);
  });

  it("a key without money gets a 402 before the upstream is called", async () => {
    const broke = await createAccount(server, { usd: 0 });
    const poor = new OpenAI({ apiKey: broke.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await poor.audio.transcriptions.create({ model: "whisper-1", file: await toFile(oneSecondWav(), "e.wav", { type: "audio/wav" }) }).catch((e) => e);
    expect(err.status).toBe(402);
    const speech = await poor.audio.speech.create({ model: "tts-1", voice: "alloy", input: "hi" }).catch((e) => e);
    expect(speech.status).toBe(402);
    expect(fake.requests).toHaveLength(0);
  });
});
