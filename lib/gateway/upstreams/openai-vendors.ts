/**
 * The dialects of Chat Completions spoken by OpenAI-compatible vendors, one declarative entry
 * each (docs/upstreams.md, "Vendor profiles"; decision 0049). They differ in ways that cost
 * money or fail requests: where reasoning tokens are counted, where cache reads are reported,
 * where reasoning text comes back, how thinking is switched on, and which request fields a
 * vendor refuses or renames. The `openai` entry is today's behaviour and changes nothing.
 * Sources: each vendor's API reference (searched 2026-11-28), noted beside its entry.
 */
import type { OpenAIVendor } from "../../../db/schema";
import type { CanonicalRequest, ReasoningControl, ReasoningEffort } from "../canonical";
import { budgetOf, effortOf } from "../conversion/reasoning";
import type { Inexpressible } from "./text-types";
import type { Ok } from "../../result";

/** How a vendor is told to think, and how hard. */
type Thinking =
  /** `reasoning_effort` with the values the vendor takes (`off`: its word for none). */
  | { style: "reasoning_effort"; efforts: readonly string[]; off?: string; models?: RegExp }
  /** `enable_thinking: bool` and `thinking_budget: n` (Qwen on DashScope). */
  | { style: "enable_thinking" }
  /** `thinking: {type: "enabled" | "disabled"}`, plus `reasoning_effort` when `efforts` is given. */
  | { style: "thinking_type"; efforts?: readonly string[] }
  /** OpenRouter's unified `reasoning: {effort}` (or `{max_tokens}` for a budget). */
  | { style: "openrouter" };

export interface VendorProfile {
  usage: {
    /** `completion_tokens_details.reasoning_tokens` is counted beside completion_tokens, not in it (xAI). */
    reasoningOutsideCompletion?: boolean;
    /** Cache reads under another name than `prompt_tokens_details.cached_tokens`. */
    cacheRead?: "prompt_cache_hit_tokens" | "cached_tokens";
    /** A charge the vendor reports in usage, in its unit: units per micro-dollar. */
    cost?: { field: string; unitsPerMicroUsd: number };
    /** Streamed usage where the vendor puts it when not at `usage`. */
    streamUsageAt?: "x_groq";
  };
  /** Message/delta fields that carry reasoning text, first found wins. */
  reasoningText: readonly string[];
  /** Absent: OpenAI's `reasoning_effort`, for OpenAI's reasoning models only (openai-chat-request.ts). */
  thinking?: Thinking;
  /** The output cap's field. */
  maxTokens: "max_completion_tokens" | "max_tokens";
  /** Request fields under another name (OpenAI's → the vendor's). */
  renames?: Readonly<Record<string, string>>;
  /** Hints the vendor refuses (dropped and named); `models` narrows it to some of its models. */
  refusesHints?: { fields: readonly string[]; models?: RegExp };
  /** Semantic fields it refuses (a 400 naming them); `models` as above. */
  refuses?: { fields: readonly string[]; models?: RegExp };
  /** Whether it takes `stream_options` (the others put usage in the last chunk unasked). */
  streamOptions: boolean;
}

const BOTH_REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;
/** xAI's reasoning models (grok-3-mini, grok-4 and later, but not their non-reasoning variants). */
const XAI_REASONING = /grok-(?:3-mini|[4-9])(?!.*non-reasoning)/;

export const VENDOR_PROFILES: Readonly<Record<OpenAIVendor, VendorProfile>> = {
  openai: { usage: {}, reasoningText: BOTH_REASONING_FIELDS, maxTokens: "max_completion_tokens", streamOptions: true },
  // docs.x.ai: reasoning_tokens are billed beside completion_tokens; usage.cost_in_usd_ticks
  // (10^10 per USD) is the charge; only grok-3-mini takes reasoning_effort (low|high); the
  // reasoning models refuse presence_penalty, frequency_penalty and stop.
  xai: {
    usage: { reasoningOutsideCompletion: true, cost: { field: "cost_in_usd_ticks", unitsPerMicroUsd: 10_000 } },
    reasoningText: ["reasoning_content"],
    thinking: { style: "reasoning_effort", efforts: ["low", "high"], models: /grok-3-mini/ },
    maxTokens: "max_completion_tokens",
    refusesHints: { fields: ["presence_penalty", "frequency_penalty"], models: XAI_REASONING },
    refuses: { fields: ["stop"], models: XAI_REASONING },
    streamOptions: true,
  },
  // api-docs.deepseek.com: thinking {type}, reasoning_effort low|high|max, reasoning_content,
  // prompt_cache_hit_tokens / prompt_cache_miss_tokens, max_tokens.
  deepseek: {
    usage: { cacheRead: "prompt_cache_hit_tokens" },
    reasoningText: ["reasoning_content"],
    thinking: { style: "thinking_type", efforts: ["low", "high", "max"] },
    maxTokens: "max_tokens",
    streamOptions: true,
  },
  // Alibaba Model Studio (DashScope compatible mode): enable_thinking + thinking_budget, reasoning_content.
  qwen: { usage: {}, reasoningText: ["reasoning_content"], thinking: { style: "enable_thinking" }, maxTokens: "max_tokens", streamOptions: true },
  // platform.moonshot.ai: thinking {type} on kimi-k2.5+, reasoning_content, usage.cached_tokens.
  moonshot: { usage: { cacheRead: "cached_tokens" }, reasoningText: ["reasoning_content"], thinking: { style: "thinking_type" }, maxTokens: "max_tokens", streamOptions: true },
  // docs.z.ai: thinking {type}, reasoning_content, max_tokens only; no penalties, no stream_options
  // (usage comes in the last chunk anyway).
  zhipu: {
    usage: {},
    reasoningText: ["reasoning_content"],
    thinking: { style: "thinking_type" },
    maxTokens: "max_tokens",
    refusesHints: { fields: ["presence_penalty", "frequency_penalty"] },
    streamOptions: false,
  },
  // docs.mistral.ai: max_tokens, random_seed, reasoning_effort (none|high), thinking as content
  // chunks; unknown fields are refused, usage comes in the last chunk unasked.
  mistral: {
    usage: {},
    reasoningText: [],
    thinking: { style: "reasoning_effort", efforts: ["high"], off: "none" },
    maxTokens: "max_tokens",
    renames: { seed: "random_seed" },
    streamOptions: false,
  },
  // console.groq.com: `reasoning` (reasoning_format parsed), reasoning_effort, streamed usage in x_groq.usage.
  groq: {
    usage: { streamUsageAt: "x_groq" },
    reasoningText: ["reasoning"],
    thinking: { style: "reasoning_effort", efforts: ["low", "medium", "high"], off: "none" },
    maxTokens: "max_completion_tokens",
    refusesHints: { fields: ["logprobs", "top_logprobs"] },
    streamOptions: true,
  },
  // docs.together.ai: `reasoning` on messages and deltas, reasoning_effort, max_tokens, usage.cached_tokens.
  together: {
    usage: { cacheRead: "cached_tokens" },
    reasoningText: ["reasoning"],
    thinking: { style: "reasoning_effort", efforts: ["low", "medium", "high"] },
    maxTokens: "max_tokens",
    streamOptions: true,
  },
  // docs.fireworks.ai: reasoning_content, reasoning_effort (none|low|medium|high), max_tokens.
  fireworks: {
    usage: {},
    reasoningText: ["reasoning_content"],
    thinking: { style: "reasoning_effort", efforts: ["low", "medium", "high"], off: "none" },
    maxTokens: "max_tokens",
    streamOptions: true,
  },
  // openrouter.ai/docs: reasoning {effort|max_tokens}, `reasoning` text, usage.cost in USD credits.
  openrouter: {
    usage: { cost: { field: "cost", unitsPerMicroUsd: 1e-6 } },
    reasoningText: ["reasoning"],
    thinking: { style: "openrouter" },
    maxTokens: "max_tokens",
    streamOptions: true,
  },
};

/** The profile of an upstream's vendor; an unknown or absent vendor is OpenAI's (today's behaviour). */
export function vendorProfile(vendor: string | undefined): VendorProfile {
  return (vendor && VENDOR_PROFILES[vendor as OpenAIVendor]) || VENDOR_PROFILES.openai;
}

const EFFORTS: readonly ReasoningEffort[] = ["minimal", "low", "medium", "high", "xhigh", "max"];

/** The vendor's effort nearest the asked one (ties go up: more thinking, never less than asked for nearby). */
function nearest(effort: ReasoningEffort, offered: readonly string[]): string {
  const at = EFFORTS.indexOf(effort);
  let best = offered[0]!;
  for (const o of offered) {
    const d = Math.abs(EFFORTS.indexOf(o as ReasoningEffort) - at);
    if (d <= Math.abs(EFFORTS.indexOf(best as ReasoningEffort) - at)) best = o;
  }
  return best;
}

/** The body fields that switch the vendor's thinking as the client asked (none when it cannot). */
function thinkingFields(t: Thinking, rc: ReasoningControl, model: string): Record<string, unknown> {
  switch (t.style) {
    case "reasoning_effort":
      if (t.models && !t.models.test(model)) return {};
      if (!rc.enabled) return { reasoning_effort: t.off ?? t.efforts[0] };
      return rc.adaptive && !rc.effort ? {} : { reasoning_effort: nearest(effortOf(rc), t.efforts) };
    case "enable_thinking":
      if (!rc.enabled) return { enable_thinking: false };
      return rc.adaptive ? { enable_thinking: true } : { enable_thinking: true, thinking_budget: budgetOf(rc) };
    case "thinking_type":
      if (!rc.enabled) return { thinking: { type: "disabled" } };
      return t.efforts && !rc.adaptive ? { thinking: { type: "enabled" }, reasoning_effort: nearest(effortOf(rc), t.efforts) } : { thinking: { type: "enabled" } };
    case "openrouter":
      if (!rc.enabled) return { reasoning: { effort: "none" } };
      if (rc.budgetTokens !== undefined) return { reasoning: { max_tokens: rc.budgetTokens } };
      return rc.adaptive && !rc.effort ? { reasoning: { enabled: true } } : { reasoning: { effort: nearest(effortOf(rc), ["minimal", "low", "medium", "high", "xhigh"]) } };
  }
}

/**
 * A Chat Completions body (converted, or the client's own) in the vendor's dialect: thinking
 * switched its way, the output cap and other fields under its names, what it refuses dropped
 * (hints, returned for x-gateway-dropped-params) or refused (a 400 naming the field). Mutates
 * `body`; the OpenAI profile leaves it as it is.
 */
export function toVendorBody(p: VendorProfile, body: Record<string, unknown>, req: CanonicalRequest, model: string): Ok<string[]> | Inexpressible {
  const dropped: string[] = [];
  if (p === VENDOR_PROFILES.openai) return { ok: true, value: dropped };
  const has = (f: string) => body[f] !== undefined && body[f] !== null;
  const applies = (rule?: { models?: RegExp }) => rule && (!rule.models || rule.models.test(model));
  if (applies(p.refuses)) for (const f of p.refuses!.fields) if (has(f)) return { ok: false, error: { field: f, message: "is not supported by this model's upstream" } };
  if (p.thinking && (req.reasoning || has("reasoning_effort"))) {
    delete body.reasoning_effort; // OpenAI's word for it, set for OpenAI's models
    if (req.reasoning) Object.assign(body, thinkingFields(p.thinking, req.reasoning, model));
  }
  if (p.maxTokens === "max_tokens" && has("max_completion_tokens")) {
    body.max_tokens ??= body.max_completion_tokens;
    delete body.max_completion_tokens;
  }
  for (const [from, to] of Object.entries(p.renames ?? {}))
    if (has(from)) {
      body[to] = body[from];
      delete body[from];
    }
  if (applies(p.refusesHints))
    for (const f of p.refusesHints!.fields)
      if (has(f)) {
        delete body[f];
        dropped.push(f);
      }
  if (!p.streamOptions) delete body.stream_options;
  return { ok: true, value: dropped };
}

/**
 * A vendor's usage object in OpenAI's meaning, in place: reasoning inside completion_tokens,
 * cache reads at prompt_tokens_details.cached_tokens, and the vendor's own charge taken out (the
 * client is shown ours, never the upstream's price). Returns that charge in micro-USD, if any.
 */
export function normalizeVendorUsage(p: VendorProfile, usage: Record<string, unknown>): number | undefined {
  const u = p.usage;
  if (u.reasoningOutsideCompletion) {
    const cd = usage.completion_tokens_details as Record<string, unknown> | undefined;
    const r = cd?.reasoning_tokens;
    if (typeof usage.completion_tokens === "number" && typeof r === "number" && r > 0) {
      usage.completion_tokens += r;
      if (typeof usage.prompt_tokens === "number") usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    }
  }
  if (u.cacheRead) {
    const hit = usage[u.cacheRead];
    const pd = (usage.prompt_tokens_details && typeof usage.prompt_tokens_details === "object" ? usage.prompt_tokens_details : {}) as Record<string, unknown>;
    if (hit !== undefined && pd.cached_tokens === undefined) usage.prompt_tokens_details = Object.assign({}, pd, { cached_tokens: hit });
  }
  if (!u.cost) return undefined;
  const c = usage[u.cost.field];
  delete usage[u.cost.field];
  delete usage.cost_details;
  return typeof c === "number" && Number.isFinite(c) && c >= 0 ? Math.round(c / u.cost.unitsPerMicroUsd) : undefined;
}
