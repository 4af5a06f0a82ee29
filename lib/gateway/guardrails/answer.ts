/** A whole (non-streamed) answer under post_response guardrails: checked, and its text parts masked in place. */
import type { ContentPart } from "../canonical";
import type { ApiError } from "../errors";
import type { Result } from "../../result";
import { rangesOf } from "./check";
import { mergeRanges, maskPiece } from "./rules";
import type { GuardSession } from "./session";

/** Whether the text was masked (a passthrough body no longer matches it), or the block. */
export type CheckedAnswer = Result<{ rewritten: boolean }, ApiError>;

export async function guardAnswer(session: GuardSession, content: ContentPart[], signal?: AbortSignal): Promise<CheckedAnswer> {
  let text = "";
  // Reasoning text shown to the client is checked and masked like the answer's.
  for (const p of content) if (p.type === "text" || p.type === "reasoning") text += p.text;
  const v = await session.checkAnswer(text, true, signal);
  if (!v.ok) {
    session.outcome = `blocked by ${v.guard} (post_response)`;
    return { ok: false, error: v.error };
  }
  if (!v.value.masks.length) return { ok: true, value: { rewritten: false } };
  session.outcome = `redacted by ${v.value.redactedBy.join(",")} (post_response)`;
  const ranges = mergeRanges(rangesOf(v.value.masks, text));
  let at = 0;
  for (const p of content)
    if (p.type === "text" || p.type === "reasoning") {
      const from = at;
      at += p.text.length;
      p.text = maskPiece(p.text, from, ranges);
    }
  return { ok: true, value: { rewritten: true } };
}
