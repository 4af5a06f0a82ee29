/**
 * Reasoning controls between the protocols, to the nearest setting the target has
 * (docs/conversion-policy.md, "Reasoning"). "No thinking" is always accepted: where a model
 * cannot switch thinking off, it gets its lowest setting.
 */
import type { CanonicalRequest, ReasoningControl, ReasoningEffort } from "../canonical";
import { isGemini3 } from "./signatures";

/** Thinking budget per effort (the table in the docs). */
export const EFFORT_BUDGET: Record<ReasoningEffort, number> = {
  minimal: 1024,
  low: 4096,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 32768,
};

/** The effort nearest to a budget. */
export function effortOfBudget(budget: number): ReasoningEffort {
  if (budget <= 1024) return "minimal";
  if (budget <= 4096) return "low";
  if (budget <= 8192) return "medium";
  if (budget <= 16384) return "high";
  if (budget <= 24576) return "xhigh";
  return "max";
}

export function budgetOf(rc: ReasoningControl): number {
  return rc.budgetTokens ?? EFFORT_BUDGET[rc.effort ?? "medium"];
}

export function effortOf(rc: ReasoningControl): ReasoningEffort {
  return rc.effort ?? (rc.budgetTokens !== undefined ? effortOfBudget(rc.budgetTokens) : "medium");
}

/** Parses a client's effort word; unknown words are the caller's 400. */
export function parseEffort(v: unknown): ReasoningEffort | "none" | undefined {
  return v === "none" || v === "minimal" || v === "low" || v === "medium" || v === "high" || v === "xhigh" || v === "max" ? v : undefined;
}

/** Anthropic's minimum thinking budget; budget_tokens must also stay below max_tokens. */
export const ANTHROPIC_MIN_BUDGET = 1024;

/**
 * AM `thinking` for a canonical request, or undefined (no thinking). Thinking is left off where
 * Anthropic would refuse it: forced tool use, a cap too small for the minimum budget, and a tool
 * loop whose last assistant turn lost its signed thinking block (clients that cannot echo it).
 */
export function anthropicThinking(req: CanonicalRequest): Record<string, unknown> | undefined {
  const rc = req.reasoning;
  if (!rc?.enabled) return undefined;
  if (req.toolChoice?.type === "required" || req.toolChoice?.type === "tool") return undefined;
  const cap = req.maxOutputTokens ?? 0;
  if (cap <= ANTHROPIC_MIN_BUDGET) return undefined;
  const lastAssistant = [...req.messages].reverse().find((m) => m.role === "assistant");
  if (lastAssistant?.parts.some((p) => p.type === "tool_call") && !lastAssistant.parts.some((p) => p.type === "reasoning" && p.origin === "anthropic"))
    return undefined;
  const budget = Math.min(Math.max(budgetOf(rc), ANTHROPIC_MIN_BUDGET), cap - 1);
  return { type: "enabled", budget_tokens: budget };
}

/** GC `thinkingConfig`: thinkingLevel on Gemini 3, thinkingBudget before it. */
export function geminiThinkingConfig(rc: ReasoningControl, upstreamModel: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (isGemini3(upstreamModel)) {
    // Gemini 3 cannot switch thinking off; "low" is its nearest setting on every 3.x model.
    if (!rc.enabled) out.thinkingLevel = "low";
    else if (!rc.adaptive) out.thinkingLevel = ["minimal", "low"].includes(effortOf(rc)) ? "low" : "high";
  } else {
    const pro = /pro/.test(upstreamModel);
    const max = pro ? 32768 : 24576;
    if (!rc.enabled) out.thinkingBudget = pro ? 128 : 0;
    else if (rc.adaptive) out.thinkingBudget = -1;
    else out.thinkingBudget = Math.min(Math.max(budgetOf(rc), pro ? 128 : 1), max);
  }
  if (rc.enabled && rc.show) out.includeThoughts = true;
  return out;
}

/** OpenAI models that take `reasoning_effort`; others think not at all (their nearest setting). */
export function openaiReasons(upstreamModel: string): boolean {
  return /^(?:o\d|gpt-5|gpt-oss|codex)/i.test(upstreamModel.replace(/^.*\//, ""));
}

/** CC `reasoning_effort` for a reasoning-capable OpenAI model, or undefined. */
export function openaiReasoningEffort(rc: ReasoningControl | undefined, upstreamModel: string): string | undefined {
  if (!rc || !openaiReasons(upstreamModel)) return undefined;
  if (!rc.enabled) return /^gpt-5\.[1-9]/.test(upstreamModel) ? "none" : "minimal";
  const e = effortOf(rc);
  // low/medium/high are what every reasoning model takes.
  return e === "minimal" ? "low" : e === "xhigh" || e === "max" ? "high" : e;
}
