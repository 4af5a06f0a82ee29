import { describe, expect, it } from "vitest";
import type { CanonicalRequest, ReasoningControl } from "../canonical";
import { usageFromOpenAI } from "./openai-chat-response";
import { normalizeVendorUsage, toVendorBody, VENDOR_PROFILES, vendorProfile } from "./openai-vendors";

const req = (reasoning?: ReasoningControl): CanonicalRequest => ({ model: "m", messages: [], stream: false, ...(reasoning ? { reasoning } : {}) });
const body = () => ({ model: "x", messages: [], max_completion_tokens: 500, reasoning_effort: "high", seed: 7, presence_penalty: 0.5, stream_options: { include_usage: true } });

describe("vendor profiles: the request in each vendor's dialect", () => {
  it("an unknown or absent vendor is OpenAI's, and OpenAI's body is left as it is", () => {
    expect(vendorProfile(undefined)).toBe(VENDOR_PROFILES.openai);
    expect(vendorProfile("acme")).toBe(VENDOR_PROFILES.openai);
    const b = body();
    expect(toVendorBody(VENDOR_PROFILES.openai, b, req({ enabled: true, effort: "high" }), "gpt-5")).toEqual({ ok: true, value: [] });
    expect(b).toEqual(body());
  });

  it.each([
    ["xai", "grok-3-mini", { enabled: true, effort: "medium" }, { reasoning_effort: "high" }],
    ["xai", "grok-3-mini", { enabled: true, effort: "minimal" }, { reasoning_effort: "low" }],
    ["xai", "grok-4", { enabled: true, effort: "high" }, {}], // grok-4 refuses reasoning_effort
    ["deepseek", "deepseek-chat", { enabled: true, effort: "medium" }, { thinking: { type: "enabled" }, reasoning_effort: "high" }],
    ["deepseek", "deepseek-chat", { enabled: false }, { thinking: { type: "disabled" } }],
    ["qwen", "qwen-plus", { enabled: true, budgetTokens: 3000 }, { enable_thinking: true, thinking_budget: 3000 }],
    ["qwen", "qwen-plus", { enabled: false }, { enable_thinking: false }],
    ["zhipu", "glm-4.6", { enabled: true, adaptive: true }, { thinking: { type: "enabled" } }],
    ["mistral", "magistral-medium", { enabled: false }, { reasoning_effort: "none" }],
    ["openrouter", "x/y", { enabled: true, effort: "max" }, { reasoning: { effort: "xhigh" } }],
    ["openrouter", "x/y", { enabled: true, budgetTokens: 2048 }, { reasoning: { max_tokens: 2048 } }],
  ] as const)("%s (%s): %j → %j", (vendor, model, rc, fields) => {
    const b: Record<string, unknown> = { model, messages: [], reasoning_effort: "high" };
    expect(toVendorBody(VENDOR_PROFILES[vendor], b, req(rc as ReasoningControl), model).ok).toBe(true);
    const { model: _m, messages: _ms, ...rest } = b;
    expect(rest).toEqual(fields);
  });

  it("renames the cap and Mistral's seed, drops stream_options where refused, names dropped hints", () => {
    const m = body();
    expect(toVendorBody(VENDOR_PROFILES.mistral, m, req(), "mistral-small")).toEqual({ ok: true, value: [] });
    expect(m).toMatchObject({ max_tokens: 500, random_seed: 7 });
    expect(m).not.toHaveProperty("max_completion_tokens");
    expect(m).not.toHaveProperty("stream_options");
    const z = body();
    expect(toVendorBody(VENDOR_PROFILES.zhipu, z, req(), "glm-4.6")).toEqual({ ok: true, value: ["presence_penalty"] });
    expect(z).not.toHaveProperty("presence_penalty");
  });

  it("a semantic field the vendor refuses is a 400 naming it (xAI reasoning models and stop)", () => {
    expect(toVendorBody(VENDOR_PROFILES.xai, { stop: ["x"] }, req(), "grok-4")).toMatchObject({ ok: false, error: { field: "stop" } });
    expect(toVendorBody(VENDOR_PROFILES.xai, { stop: ["x"] }, req(), "grok-4-fast-non-reasoning")).toMatchObject({ ok: true });
  });
});

describe("vendor profiles: usage in OpenAI's meaning", () => {
  it("xAI: reasoning billed beside completion_tokens is added to it; its tick charge is kept for the log and taken out", () => {
    const u: Record<string, unknown> = { prompt_tokens: 291, completion_tokens: 26, total_tokens: 506, prompt_tokens_details: { cached_tokens: 244 }, completion_tokens_details: { reasoning_tokens: 189 }, cost_in_usd_ticks: 1399000 };
    const usage = usageFromOpenAI(u, VENDOR_PROFILES.xai)!;
    expect(usage).toMatchObject({ inputTokens: 291, outputTokens: 215, reasoningTokens: 189, cacheReadTokens: 244, reportedCostMicroUsd: 140 });
    expect(u).toMatchObject({ completion_tokens: 215, total_tokens: 506 });
    expect(u).not.toHaveProperty("cost_in_usd_ticks");
    expect((usage.raw as Record<string, unknown>).completion_tokens).toBe(26); // the audit copy is as sent
  });

  it("the same usage read as OpenAI's under-bills by the reasoning (the defect)", () => {
    expect(usageFromOpenAI({ prompt_tokens: 291, completion_tokens: 26, completion_tokens_details: { reasoning_tokens: 189 } })).toMatchObject({ outputTokens: 26, invalidFields: ["reasoning"] });
  });

  it("DeepSeek's and Moonshot's cache reads; OpenRouter's USD cost", () => {
    expect(usageFromOpenAI({ prompt_tokens: 1200, completion_tokens: 3, prompt_cache_hit_tokens: 1000, prompt_cache_miss_tokens: 200 }, VENDOR_PROFILES.deepseek)).toMatchObject({ cacheReadTokens: 1000 });
    expect(usageFromOpenAI({ prompt_tokens: 2000, completion_tokens: 3, cached_tokens: 1500 }, VENDOR_PROFILES.moonshot)).toMatchObject({ cacheReadTokens: 1500 });
    const or: Record<string, unknown> = { prompt_tokens: 10, completion_tokens: 3, cost: 0.00588, cost_details: {} };
    expect(normalizeVendorUsage(VENDOR_PROFILES.openrouter, or)).toBe(5880);
    expect(or).toEqual({ prompt_tokens: 10, completion_tokens: 3 });
  });
});
