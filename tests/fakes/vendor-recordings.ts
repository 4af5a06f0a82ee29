/**
 * What each OpenAI-compatible vendor answers, JSON and streamed, with reasoning and usage as it
 * bills them, served by one loopback fake that also checks what the vendor itself refuses.
 *
 * Provenance, per vendor:
 * - xai: PUBLIC RECORDINGS of api.x.ai (grok-3-mini), from vercel/ai
 *   packages/xai/src/__fixtures__/xai-tool-call.json (JSON) and xai-text.chunks.txt (stream).
 *   Their `cost_in_usd_ticks` is what xAI charged; at grok-3-mini's list prices it is exactly
 *   prompt + cache + (completion + reasoning) — the proof that reasoning is billed on top.
 * - mistral: the stream is a PUBLIC RECORDING of api.mistral.ai (mistral-small-latest with
 *   reasoning), from vercel/ai packages/openai-compatible/src/chat/__fixtures__/
 *   issue-13703-mistral-thinking.chunks.txt (its thinking chunks shortened to a few); the JSON
 *   answer is a RECONSTRUCTION from docs.mistral.ai (content as thinking + text chunks).
 * - deepseek, qwen, moonshot, zhipu, groq, together, fireworks, openrouter: RECONSTRUCTIONS from
 *   each vendor's API reference (field names and where usage, reasoning and cost appear), with
 *   counts chosen for the test; no public recording with reasoning and usage was found.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { OpenAIVendor } from "../../db/schema";

/** The token classes a vendor billed (OpenAI's meaning: reasoning inside output, cache inside input). */
export interface Billed {
  input: number;
  output: number;
  cacheRead: number;
  reasoning: number;
}

export interface Recording {
  /** The upstream model name (the fake answers with it). */
  model: string;
  /** USD per million tokens, the vendor's list price for that model. */
  price: { inputPerMTok: number; outputPerMTok: number; cacheReadPerMTok?: number };
  json: Record<string, unknown>;
  /** `data:` payloads in order (the fake adds `data: [DONE]`). */
  chunks: Record<string, unknown>[];
  /** What the vendor billed for each. */
  billed: { json: Billed; stream: Billed };
  /** Our charge in µUSD (the price above, rounded up per request), worked by hand. */
  charge: { json: number; stream: number };
  /** The vendor's own reported charge in µUSD, where it reports one. */
  reported?: { json: number; stream: number };
  /** The text and reasoning a client must see (the JSON answer's). */
  text: string;
  reasoning: string;
  /** Request fields the real vendor refuses with a 400/422. */
  refuses: string[];
}

// ─── xAI: public recordings ────────────────────────────────────────────────────────────────────

const XAI_TOOL_CALL = {
  id: "61c0468b-2a98-413e-f654-dbffcdbb62c1",
  object: "chat.completion",
  created: 1770774041,
  model: "grok-3-mini",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "",
        reasoning_content:
          'First, the user is asking about the weather in San Francisco. I have a function available called "weather" that gets the weather for a location.\n\nThe function requires a parameter: "location", which is a string. The user has provided "San Francisco" as the location, so that\'s clear and inferable.\n\nI should call this function to advance the user\'s request.',
        tool_calls: [{ id: "call_93562515", function: { name: "weather", arguments: '{"location":"San Francisco"}' }, type: "function" }],
        refusal: null,
      },
      finish_reason: "tool_calls",
    },
  ],
  usage: {
    prompt_tokens: 291,
    completion_tokens: 26,
    total_tokens: 506,
    prompt_tokens_details: { text_tokens: 291, audio_tokens: 0, image_tokens: 0, cached_tokens: 244 },
    completion_tokens_details: { reasoning_tokens: 189, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    num_sources_used: 0,
    cost_in_usd_ticks: 1399000,
  },
  system_fingerprint: "fp_2a885414fb",
};

const xaiChunk = (created: number, choices: unknown[], extra: Record<string, unknown> = {}) => ({
  id: "7327b9f5-1c2f-0a15-3fef-c14a71c460d3",
  object: "chat.completion.chunk",
  created,
  model: "grok-3-mini",
  choices,
  ...extra,
  system_fingerprint: "fp_2a885414fb",
});
const XAI_TEXT_CHUNKS = [
  xaiChunk(1770774058, [{ index: 0, delta: { reasoning_content: "First", role: "assistant" } }]),
  ...[",", " the", " user", " said"].map((r) => xaiChunk(1770774058, [{ index: 0, delta: { reasoning_content: r } }])),
  xaiChunk(1770774061, [{ index: 0, delta: { content: "Hello" } }]),
  xaiChunk(1770774061, [{ index: 0, delta: {}, finish_reason: "stop" }]),
  xaiChunk(1770774061, [], {
    usage: {
      prompt_tokens: 12,
      completion_tokens: 1,
      total_tokens: 303,
      prompt_tokens_details: { text_tokens: 12, audio_tokens: 0, image_tokens: 0, cached_tokens: 11 },
      completion_tokens_details: { reasoning_tokens: 290, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      num_sources_used: 0,
      cost_in_usd_ticks: 1466250,
    },
  }),
];

// ─── Mistral: public stream recording (thinking chunks shortened), reconstructed JSON ─────────

const mistralChunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: "ed56a5f5c9254b8981e89c2ecfdd6a8d",
  object: "chat.completion.chunk",
  created: 1784737087,
  model: "mistral-small-latest",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
const thinking = (text: string) => ({ type: "thinking", thinking: [{ type: "text", text }], closed: true });
const MISTRAL_CHUNKS = [
  mistralChunk({ role: "assistant", content: "" }),
  mistralChunk({ content: "" }, null, { p: "abcdefghijklmnopqrstu" }),
  mistralChunk({ content: [thinking("Okay, the")] }),
  mistralChunk({ content: [thinking(" user is asking for the product of 17 and 23.")] }),
  mistralChunk({ content: [thinking(" 340 + 51 = 391.")] }),
  mistralChunk({ content: [thinking("1."), { type: "text", text: "3" }] }),
  mistralChunk({ content: "91" }, "stop", { usage: { prompt_tokens: 28, total_tokens: 167, completion_tokens: 139, prompt_tokens_details: { cached_tokens: 0 } } }),
];

// ─── Reconstructions: one shape per vendor ─────────────────────────────────────────────────────

interface Shape {
  /** Where the vendor puts reasoning text on messages and deltas ("chunks": Mistral's content chunks). */
  reasoningField: "reasoning_content" | "reasoning";
  usage: Record<string, unknown>;
  /** Streamed usage: a last chunk of its own (OpenAI's, asked with stream_options), on the finish chunk, or in x_groq. */
  streamUsage: "own-chunk" | "finish-chunk" | "x_groq";
}

function reconstructed(model: string, s: Shape, text: string, reasoning: string): { json: Record<string, unknown>; chunks: Record<string, unknown>[] } {
  const base = { id: `${model}-rec-1`, object: "chat.completion.chunk", created: 1790000000, model };
  const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
  const half = Math.ceil(reasoning.length / 2);
  const chunks: Record<string, unknown>[] = [
    chunk({ role: "assistant", content: "" }),
    chunk({ [s.reasoningField]: reasoning.slice(0, half) }),
    chunk({ [s.reasoningField]: reasoning.slice(half) }),
    chunk({ content: text }),
    s.streamUsage === "finish-chunk"
      ? chunk({}, "stop", { usage: s.usage })
      : s.streamUsage === "x_groq"
        ? chunk({}, "stop", { x_groq: { id: "req_rec", usage: s.usage } })
        : chunk({}, "stop"),
  ];
  if (s.streamUsage === "own-chunk") chunks.push({ ...base, choices: [], usage: s.usage });
  return {
    json: { id: `${model}-rec-1`, object: "chat.completion", created: 1790000000, model, choices: [{ index: 0, message: { role: "assistant", content: text, [s.reasoningField]: reasoning }, finish_reason: "stop" }], usage: s.usage },
    chunks,
  };
}

const same = (b: Billed) => ({ json: b, stream: b });
const both = (n: number) => ({ json: n, stream: n });
const TEXT = "The answer is 391.";
const THOUGHT = "17 × 23: 17 × 20 = 340, 17 × 3 = 51, 340 + 51 = 391.";

export const RECORDINGS: Record<Exclude<OpenAIVendor, "openai">, Recording> = {
  xai: {
    model: "grok-3-mini",
    price: { inputPerMTok: 0.3, cacheReadPerMTok: 0.075, outputPerMTok: 0.5 },
    json: XAI_TOOL_CALL,
    chunks: XAI_TEXT_CHUNKS,
    billed: { json: { input: 291, cacheRead: 244, output: 26 + 189, reasoning: 189 }, stream: { input: 12, cacheRead: 11, output: 1 + 290, reasoning: 290 } },
    // 47 × 0.3 + 244 × 0.075 + 215 × 0.5 = 139.9; 1 × 0.3 + 11 × 0.075 + 291 × 0.5 = 146.625 (rounded up)
    charge: { json: 140, stream: 147 },
    // 1,399,000 and 1,466,250 ticks (10^10 per USD)
    reported: { json: 140, stream: 147 },
    text: "",
    reasoning: XAI_TOOL_CALL.choices[0]!.message.reasoning_content,
    refuses: [],
  },
  mistral: {
    model: "mistral-small-latest",
    price: { inputPerMTok: 0.1, outputPerMTok: 0.3 },
    json: {
      id: "cmpl-rec-mistral",
      object: "chat.completion",
      created: 1784737087,
      model: "mistral-small-latest",
      choices: [{ index: 0, message: { role: "assistant", content: [thinking(THOUGHT), { type: "text", text: TEXT }], tool_calls: null }, finish_reason: "stop" }],
      usage: { prompt_tokens: 28, total_tokens: 167, completion_tokens: 139 },
    },
    chunks: MISTRAL_CHUNKS,
    billed: same({ input: 28, cacheRead: 0, output: 139, reasoning: 0 }),
    charge: both(45), // 28 × 0.1 + 139 × 0.3 = 44.5
    text: TEXT,
    reasoning: THOUGHT,
    refuses: ["max_completion_tokens", "stream_options", "seed"],
  },
  deepseek: {
    model: "deepseek-reasoner",
    price: { inputPerMTok: 0.28, cacheReadPerMTok: 0.028, outputPerMTok: 0.42 },
    ...reconstructed("deepseek-reasoner", {
      reasoningField: "reasoning_content",
      usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500, prompt_cache_hit_tokens: 1000, prompt_cache_miss_tokens: 200, completion_tokens_details: { reasoning_tokens: 250 } },
      streamUsage: "own-chunk",
    }, TEXT, THOUGHT),
    billed: same({ input: 1200, cacheRead: 1000, output: 300, reasoning: 250 }),
    charge: both(210), // 200 × 0.28 + 1000 × 0.028 + 300 × 0.42
    text: TEXT,
    reasoning: THOUGHT,
    refuses: [],
  },
  qwen: {
    model: "qwen-plus",
    price: { inputPerMTok: 0.4, outputPerMTok: 1.2 },
    ...reconstructed("qwen-plus", {
      reasoningField: "reasoning_content",
      usage: { prompt_tokens: 100, completion_tokens: 500, total_tokens: 600, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 400 } },
      streamUsage: "own-chunk",
    }, TEXT, THOUGHT),
    billed: same({ input: 100, cacheRead: 0, output: 500, reasoning: 400 }),
    charge: both(640), // 100 × 0.4 + 500 × 1.2
    text: TEXT,
    reasoning: THOUGHT,
    refuses: [],
  },
  moonshot: {
    model: "kimi-k2-thinking",
    price: { inputPerMTok: 0.6, cacheReadPerMTok: 0.15, outputPerMTok: 2.5 },
    ...reconstructed("kimi-k2-thinking", {
      reasoningField: "reasoning_content",
      usage: { prompt_tokens: 2000, completion_tokens: 200, total_tokens: 2200, cached_tokens: 1500 },
      streamUsage: "own-chunk",
    }, TEXT, THOUGHT),
    billed: same({ input: 2000, cacheRead: 1500, output: 200, reasoning: 0 }),
    charge: both(1025), // 500 × 0.6 + 1500 × 0.15 + 200 × 2.5
    text: TEXT,
    reasoning: THOUGHT,
    refuses: [],
  },
  zhipu: {
    model: "glm-4.6",
    price: { inputPerMTok: 0.6, cacheReadPerMTok: 0.11, outputPerMTok: 2.2 },
    ...reconstructed("glm-4.6", {
      reasoningField: "reasoning_content",
      usage: { prompt_tokens: 300, completion_tokens: 120, total_tokens: 420, prompt_tokens_details: { cached_tokens: 100 } },
      streamUsage: "finish-chunk",
    }, TEXT, THOUGHT),
    billed: same({ input: 300, cacheRead: 100, output: 120, reasoning: 0 }),
    charge: both(395), // 200 × 0.6 + 100 × 0.11 + 120 × 2.2
    text: TEXT,
    reasoning: THOUGHT,
    refuses: ["max_completion_tokens", "stream_options"],
  },
  groq: {
    model: "openai/gpt-oss-120b",
    price: { inputPerMTok: 0.15, outputPerMTok: 0.6 },
    ...reconstructed("openai/gpt-oss-120b", {
      reasoningField: "reasoning",
      usage: { prompt_tokens: 80, completion_tokens: 400, total_tokens: 480, completion_tokens_details: { reasoning_tokens: 300 } },
      streamUsage: "x_groq",
    }, TEXT, THOUGHT),
    billed: same({ input: 80, cacheRead: 0, output: 400, reasoning: 300 }),
    charge: both(252), // 80 × 0.15 + 400 × 0.6
    text: TEXT,
    reasoning: THOUGHT,
    refuses: [],
  },
  together: {
    model: "zai-org/GLM-5.2",
    price: { inputPerMTok: 1.4, cacheReadPerMTok: 0.26, outputPerMTok: 4.4 },
    ...reconstructed("zai-org/GLM-5.2", {
      reasoningField: "reasoning",
      usage: { prompt_tokens: 500, completion_tokens: 250, total_tokens: 750, cached_tokens: 200 },
      streamUsage: "own-chunk",
    }, TEXT, THOUGHT),
    billed: same({ input: 500, cacheRead: 200, output: 250, reasoning: 0 }),
    charge: both(1572), // 300 × 1.4 + 200 × 0.26 + 250 × 4.4
    text: TEXT,
    reasoning: THOUGHT,
    refuses: [],
  },
  fireworks: {
    model: "accounts/fireworks/models/deepseek-v3p1",
    price: { inputPerMTok: 0.9, outputPerMTok: 0.9 },
    ...reconstructed("accounts/fireworks/models/deepseek-v3p1", {
      reasoningField: "reasoning_content",
      usage: { prompt_tokens: 150, completion_tokens: 600, total_tokens: 750, prompt_tokens_details: { cached_tokens: 0 } },
      streamUsage: "own-chunk",
    }, TEXT, THOUGHT),
    billed: same({ input: 150, cacheRead: 0, output: 600, reasoning: 0 }),
    charge: both(675), // 150 × 0.9 + 600 × 0.9
    text: TEXT,
    reasoning: THOUGHT,
    refuses: [],
  },
  openrouter: {
    model: "anthropic/claude-sonnet-4.5",
    price: { inputPerMTok: 3, cacheReadPerMTok: 0.3, outputPerMTok: 15 },
    ...reconstructed("anthropic/claude-sonnet-4.5", {
      reasoningField: "reasoning",
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 300,
        total_tokens: 1300,
        prompt_tokens_details: { cached_tokens: 600 },
        completion_tokens_details: { reasoning_tokens: 200 },
        cost: 0.00588,
        cost_details: { upstream_inference_cost: null },
        is_byok: false,
      },
      streamUsage: "own-chunk",
    }, TEXT, THOUGHT),
    billed: same({ input: 1000, cacheRead: 600, output: 300, reasoning: 200 }),
    charge: both(5880), // 400 × 3 + 600 × 0.3 + 300 × 15
    reported: both(5880),
    text: TEXT,
    reasoning: THOUGHT,
    refuses: [],
  },
};

export interface VendorFake {
  /** `${url}/<vendor>/v1` is that vendor's base URL. */
  url: string;
  /** The bodies each vendor received, in order. */
  received: Map<string, Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

export const VENDOR_FAKE_KEY = "sk-upstream-fake-vendor";

/** POST /<vendor>/v1/chat/completions: the vendor's recording, after the checks the vendor makes. */
export async function startVendorFake(): Promise<VendorFake> {
  const received = new Map<string, Array<Record<string, unknown>>>();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c));
    req.on("end", () => {
      const m = /^\/([a-z]+)\/v1\/chat\/completions$/.exec(req.url ?? "");
      const rec = m && RECORDINGS[m[1] as keyof typeof RECORDINGS];
      const fail = (status: number, message: string) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type: "invalid_request_error" } }));
      if (!m || !rec) return fail(404, "no such route");
      if (req.headers.authorization !== `Bearer ${VENDOR_FAKE_KEY}`) return fail(401, "invalid api key");
      const body = JSON.parse(raw) as Record<string, unknown>;
      (received.get(m[1]!) ?? received.set(m[1]!, []).get(m[1]!)!).push(body);
      const refused = rec.refuses.find((f) => body[f] !== undefined);
      if (refused) return fail(m[1] === "mistral" ? 422 : 400, `Extra inputs are not permitted: ${refused}`);
      if (body.stream !== true) return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(rec.json));
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const c of rec.chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((r) => server.close(() => r())) };
}
