/**
 * The conversion policy, one implementation for every codec (docs/conversion-policy.md):
 * a *semantic* field is converted or refused with a 400 naming it; a *hint* (a knob the target
 * has no counterpart for) is dropped and named in `x-gateway-dropped-params` and on the log row;
 * a strict model refuses hints instead. Per-model rules cover upstream constraints.
 * Applied only when converting: a same-protocol passthrough forwards the body as sent.
 */
import { createHash } from "node:crypto";
import type { CanonicalField, CanonicalRequest, HostedTool } from "../canonical";
import type { Err, Ok } from "../../result";

/** The hints (canonical names; each protocol renders its own with fieldName). */
export type HintField =
  | "top_k"
  | "seed"
  | "presence_penalty"
  | "frequency_penalty"
  | "verbosity"
  | "service_tier"
  | "top_p"
  | "temperature"
  | "parallel_tool_calls"
  | "cache_control"
  | "prompt_cache_key";

export interface TargetCapabilities {
  /** Hints the target takes. */
  hints: ReadonlySet<HintField>;
  /** Hosted tools the target runs. */
  hostedTools: ReadonlySet<HostedTool["type"]>;
}

export interface PolicyTarget {
  caps: TargetCapabilities;
  upstreamModel: string;
  /** The operator made this model strict: hints are refused, not dropped. */
  strict?: boolean;
}

/** A field the target cannot take: the route renders it as a 400 in the client's own words. */
export interface FieldRefusal {
  field: CanonicalField | string;
  message: string;
}

/** The one refusal of the text conversion: request builders, the policy and media inlining all answer it. */
export type Inexpressible = Err<FieldRefusal>;

/** The request for the target (hints it lacks removed) and the client field names dropped. */
export type PolicyOutcome = Ok<{ request: CanonicalRequest; dropped: string[] }> | Inexpressible;

/** Claude 4.5-class models refuse `temperature` and `top_p` together: temperature wins. */
export function temperatureWinsOverTopP(upstreamModel: string): boolean {
  return /claude-(?:(?:opus|sonnet|haiku)-)?(?:4[-.](?:[1-9]\d*)|[5-9](?:[-.]\d+)?)(?:$|[-@.])/.test(upstreamModel.replace(/^.*\//, "")) && !/claude-(?:opus|sonnet|haiku)-4-(?:0|2025)/.test(upstreamModel);
}

const KEYS: Array<[HintField, keyof CanonicalRequest]> = [
  ["top_k", "topK"],
  ["seed", "seed"],
  ["presence_penalty", "presencePenalty"],
  ["frequency_penalty", "frequencyPenalty"],
  ["verbosity", "verbosity"],
  ["service_tier", "serviceTier"],
];

export function applyConversionPolicy(req: CanonicalRequest, target: PolicyTarget): PolicyOutcome {
  let out: CanonicalRequest | null = null;
  const dropped: string[] = [];
  const copy = () => (out ??= { ...req });
  const drop = (name: string, key?: keyof CanonicalRequest) => {
    dropped.push(name);
    if (key) delete (copy() as unknown as Record<string, unknown>)[key];
  };
  for (const [hint, key] of KEYS) if (req[key] !== undefined && !target.caps.hints.has(hint)) drop(hint, key);
  if (req.temperature !== undefined && req.topP !== undefined && temperatureWinsOverTopP(target.upstreamModel)) drop("top_p", "topP");
  // Prompt caching: explicit breakpoints only Anthropic takes; the cache key only OpenAI. Other
  // targets cache on their own (implicitly), so the fields are hints: named, nothing else changes.
  if (!target.caps.hints.has("cache_control") && hasCacheBreakpoints(req)) dropped.push("cache_control");
  if (!target.caps.hints.has("prompt_cache_key") && (req.promptCacheKey !== undefined || req.promptCacheRetention !== undefined)) dropped.push("prompt_cache_key");
  // Parallel calls are every vendor's default: only asking for one call at a time needs the target's support.
  if (req.parallelToolCalls === false && !target.caps.hints.has("parallel_tool_calls")) drop("parallel_tool_calls", "parallelToolCalls");
  if (req.hostedTools?.length) {
    const kept = req.hostedTools.filter((t) => target.caps.hostedTools.has(t.type));
    for (const t of req.hostedTools) if (!kept.includes(t)) dropped.push(t.label);
    if (kept.length !== req.hostedTools.length) copy().hostedTools = kept.length ? kept : undefined;
  }
  if (dropped.length && target.strict)
    return { ok: false, error: { field: dropped[0]!, message: "has no counterpart on this model's upstream, and this model refuses hints (strict)" } };
  return { ok: true, value: { request: out ?? req, dropped } };
}

/**
 * Token log-probabilities are data the client asked for, not a knob: a target without them
 * (Anthropic; OpenAI Responses, whose converted answer does not carry them) refuses the request.
 */
export function logprobsRefusal(req: CanonicalRequest): Inexpressible | null {
  const field = req.logprobs ? "logprobs" : req.topLogprobs !== undefined ? "top_logprobs" : null;
  return field && { ok: false, error: { field, message: "token log-probabilities are not available from this model's upstream" } };
}

function hasCacheBreakpoints(req: CanonicalRequest): boolean {
  return (
    !!req.cacheBreakpoints ||
    !!req.systemBlocks?.some((b) => b.cacheControl) ||
    !!req.tools?.some((t) => t.cacheControl) ||
    req.messages.some((m) => m.parts.some((p) => "cacheControl" in p && p.cacheControl))
  );
}

/** OpenAI's limit on `user` / `safety_identifier`; longer ids (Claude Code's) go as a hash. */
export const OPENAI_USER_MAX = 64;

export function boundedUser(user: string | undefined, max = OPENAI_USER_MAX): string | undefined {
  if (user === undefined || user.length <= max) return user;
  // Stable per end user, so abuse tracking still groups their requests.
  return `sha256:${createHash("sha256").update(user).digest("base64url")}`.slice(0, max);
}
