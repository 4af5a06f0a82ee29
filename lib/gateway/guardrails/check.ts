/**
 * Running a stage's guardrails over a text: the first block wins; redactions add up (every
 * hook's ranges are masked). A webhook that times out or fails blocks unless its hook is
 * fail-open; either way the failure is logged and counted.
 */
import { logger } from "../../logger";
import { metrics } from "../../metrics";
import { errors, type ApiError } from "../errors";
import type { Err, Ok } from "../../result";
import type { Guard } from "./registry";
import { literalRanges, piiRanges, regexRanges, type Range } from "./rules";
import { callWebhook } from "./webhook";

/** Ranges to mask in any string of the checked text (a request's strings are masked one by one). */
export type Masker = (s: string) => Range[];

/** What passed: the masks to apply and the guardrails that asked for them (none: allowed as is). */
export interface Redactions {
  masks: Masker[];
  redactedBy: string[];
}

/** A block: the content-policy error, and the guardrail that blocked (the session's outcome names it). */
export interface Blocked extends Err<ApiError> {
  guard: string;
}

export type Verdict = Ok<Redactions> | Blocked;

export interface CheckInput {
  stage: Guard["stage"];
  organisation: string;
  model: string;
  text: string;
  /** pre_request: the canonical request the webhook sees. */
  request?: unknown;
  /** post_response on a stream: false while the answer is still coming. */
  final?: boolean;
  signal?: AbortSignal;
}

const ALLOW: Verdict = { ok: true, value: { masks: [], redactedBy: [] } };

export async function runGuards(guards: readonly Guard[], input: CheckInput): Promise<Verdict> {
  if (!guards.length) return ALLOW;
  const masks: Masker[] = [];
  const redactedBy: string[] = [];
  const what = input.stage === "pre_request" ? "the request" : "the answer";
  for (const g of guards) {
    if (g.webhook) {
      const v = await callWebhook(g, { guardrail: g.id, stage: input.stage, organisation: input.organisation, model: input.model, text: input.text, request: input.request, final: input.final ?? true }, input.signal);
      if (v.verdict === "failed") {
        const outcome = g.failClosed ? "blocked" : "allowed";
        metrics().guardrailFailures.inc({ guardrail: g.id, kind: v.why, outcome });
        logger().warn({ guardrail: g.id, why: v.why, outcome }, "guardrail webhook failed; its fail policy decided");
        if (g.failClosed) return block(g, `its check ${v.why === "timeout" ? "timed out" : "failed"} and it fails closed`);
        continue;
      }
      if (v.verdict === "block") return block(g, v.reason);
      if (v.verdict === "redact" && v.redact.length) {
        const literals = v.redact;
        masks.push((s) => literalRanges(literals, s));
        redactedBy.push(g.id);
        metrics().guardrailVerdicts.inc({ guardrail: g.id, verdict: "redact" });
      } else metrics().guardrailVerdicts.inc({ guardrail: g.id, verdict: "allow" });
      continue;
    }
    const find: Masker = g.re ? (s) => regexRanges(g.re!, s) : piiRanges;
    if (!find(input.text).length) continue;
    if (g.action === "block") return block(g, g.re ? `${what} matches its pattern` : `${what} contains personal data or a secret`);
    masks.push(find);
    redactedBy.push(g.id);
    metrics().guardrailVerdicts.inc({ guardrail: g.id, verdict: "redact" });
  }
  return masks.length ? { ok: true, value: { masks, redactedBy } } : ALLOW;
}

function block(g: Guard, reason: string): Verdict {
  metrics().guardrailVerdicts.inc({ guardrail: g.id, verdict: "block" });
  return { ok: false, guard: g.id, error: errors.contentPolicy(g.id, reason) };
}

/** Every range the masks find in `s`. */
export function rangesOf(masks: readonly Masker[], s: string): Range[] {
  if (masks.length === 1) return masks[0]!(s);
  const out: Range[] = [];
  for (const m of masks) out.push(...m(s));
  return out;
}
