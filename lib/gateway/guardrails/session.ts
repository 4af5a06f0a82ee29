/**
 * One request's guardrails: the pre_request check (before any hold, so a block costs nothing),
 * and what the answer's check needs (the post_response hooks, the stream policy). The policy
 * applied is named in `x-gateway-guardrails` and on the log row (`request_logs.guardrails`).
 */
import type { CanonicalRequest } from "../canonical";
import { errors, type ApiError } from "../errors";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import { rangesOf, runGuards, type Masker } from "./check";
import type { Guard } from "./registry";
import { mergeRanges, redact } from "./rules";
import type { Err, Ok } from "../../result";

export const GUARDRAILS_HEADER = "x-gateway-guardrails";

export class GuardSession {
  /** What the header and the log row name: the hooks of each stage and the stream policy. */
  readonly policy: string;
  /** A verdict other than allow (`redacted by a, b`, `blocked by c (post_response)`), for the log row. */
  outcome: string | null = null;
  /** Characters a stream holds back before the answer's check (Infinity: the whole answer, `buffer`). */
  readonly holdback: number;
  /** How many new characters a holdback stream waits for before checking again (a webhook is not called per token). */
  readonly step: number;

  constructor(
    readonly organisation: string,
    readonly model: string,
    pre: readonly Guard[],
    readonly post: readonly Guard[],
    stream: boolean,
  ) {
    const buffer = post.some((g) => g.stream === "buffer");
    this.holdback = buffer ? Infinity : Math.max(0, ...post.map((g) => g.holdback));
    this.step = post.some((g) => g.webhook) ? Math.max(1, this.holdback) : 1;
    const parts: string[] = [];
    if (pre.length) parts.push(`pre=${pre.map((g) => g.id).join(",")}`);
    if (post.length) parts.push(`post=${post.map((g) => g.id).join(",")} (${!stream ? "whole answer" : buffer ? "buffer" : `holdback ${this.holdback}`})`);
    this.policy = parts.join("; ");
  }

  /** Whether a post hook may rewrite the answer (a stream is then re-encoded, never passed through). */
  get rewrites(): boolean {
    return this.post.some((g) => g.action === "redact" || g.webhook !== null);
  }

  get label(): string {
    return this.outcome ? `${this.policy}; ${this.outcome}` : this.policy;
  }

  checkAnswer(text: string, final: boolean, signal?: AbortSignal) {
    return runGuards(this.post, { stage: "post_response", organisation: this.organisation, model: this.model, text, final, signal });
  }
}

/** A refused request names the session's guardrails for its log line. */
export interface GuardRefusal extends Err<ApiError> {
  label: string;
}

/** The request to send (masked and parsed again after a redaction) and its session (null: no guardrail applies). */
export type GuardedRequest = Ok<{ session: GuardSession | null; req: CanonicalRequest }> | GuardRefusal;

/**
 * The pre_request hooks over the canonical request; a redaction masks every string of the
 * client's body (so a passthrough sends the masked JSON too) and parses it again. A streamed
 * request whose answer a `reject` hook would check is refused here.
 */
export async function guardRequest(
  guards: readonly Guard[],
  organisation: string,
  protocol: InboundProtocol,
  tc: { body: unknown; bodyBytes: number; parseOpts?: ParseOptions; signal: AbortSignal },
  req: CanonicalRequest,
): Promise<GuardedRequest> {
  const mine = guards.filter((g) => !g.models || g.models.has(req.model));
  if (!mine.length) return { ok: true, value: { session: null, req } };
  const pre = mine.filter((g) => g.stage === "pre_request");
  const post = mine.filter((g) => g.stage === "post_response");
  const session = new GuardSession(organisation, req.model, pre, post, req.stream);
  const refusing = req.stream ? post.find((g) => g.stream === "reject") : undefined;
  if (refusing) {
    session.outcome = `stream refused by ${refusing.id}`;
    return { ok: false, label: session.label, error: errors.contentPolicy(refusing.id, "it checks whole answers and refuses streamed requests; send this request without streaming", "stream") };
  }
  const v = await runGuards(pre, { stage: "pre_request", organisation, model: req.model, text: requestText(req), request: req, signal: tc.signal });
  if (!v.ok) {
    session.outcome = `blocked by ${v.guard} (pre_request)`;
    return { ok: false, label: session.label, error: v.error };
  }
  if (!v.value.masks.length) return { ok: true, value: { session, req } };
  session.outcome = `redacted by ${v.value.redactedBy.join(",")} (pre_request)`;
  tc.body = maskStrings(tc.body, v.value.masks);
  tc.bodyBytes = Buffer.byteLength(JSON.stringify(tc.body));
  const again = protocol.parseRequest(tc.body, tc.parseOpts);
  if (!again.ok) return { ok: false, label: session.label, error: again.error };
  return { ok: true, value: { session, req: again.value } };
}

/** The request's texts, one per line: system, messages, tool results and tool-call arguments. */
export function requestText(req: CanonicalRequest): string {
  const out: string[] = [];
  if (req.system) out.push(req.system);
  for (const m of req.messages)
    for (const p of m.parts) {
      if (p.type === "text" || p.type === "reasoning") out.push(p.text);
      else if (p.type === "tool_call") out.push(p.arguments);
      else if (p.type === "tool_result") {
        for (const c of p.content) if (c.type === "text") out.push(c.text);
      } else if (p.type === "document" && p.source.kind === "text") out.push(p.source.text);
    }
  return out.join("\n");
}

/** Media bytes and URLs are not text to mask. */
const NOT_TEXT = new Set(["data", "url", "image_url", "file_data", "fileUri", "file_uri", "mimeType", "mime_type", "media_type", "model"]);

/** A copy of the client's JSON with every string masked. */
export function maskStrings(v: unknown, masks: readonly Masker[]): unknown {
  if (typeof v === "string") return redact(v, mergeRanges(rangesOf(masks, v)));
  if (Array.isArray(v)) return v.map((x) => maskStrings(x, masks));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = NOT_TEXT.has(k) && typeof x === "string" ? x : maskStrings(x, masks);
    return out;
  }
  return v;
}
