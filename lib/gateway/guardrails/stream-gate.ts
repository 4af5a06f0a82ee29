/**
 * A streamed answer under post_response guardrails: the upstream's chunks wait here, and are
 * released only once the text up to them has been checked. `buffer` releases nothing before the
 * end; `holdback N` releases all but the last N characters, checking the whole text so far each
 * time it releases. Masked ranges are written into the held chunks' text deltas before they go.
 * A block drops what is held: the relay ends the stream with the protocol's error event.
 * Reasoning text shown to the client is checked and masked like the answer's text.
 */
import type { ApiError } from "../errors";
import type { Result } from "../../result";
import type { UpstreamChunk } from "../upstreams/text-types";
import { rangesOf } from "./check";
import { mergeRanges, maskPiece } from "./rules";
import type { GuardSession } from "./session";

interface Held {
  chunk: UpstreamChunk;
  /** Where the chunk's text ends in the whole answer. */
  end: number;
}

/** The chunks now safe to send, or the block. */
export type GateOutcome = Result<UpstreamChunk[], ApiError>;

const NOTHING: GateOutcome = { ok: true, value: [] };

export class StreamGate {
  private readonly held: Held[] = [];
  private text = "";
  /** Text released so far (offset in the whole answer). */
  private released = 0;
  private checkedAt = 0;

  constructor(private readonly session: GuardSession) {}

  /** Holds a chunk; `take` says what may go. */
  push(chunk: UpstreamChunk): void {
    for (const ev of chunk.events) if (ev.type === "text_delta" || ev.type === "reasoning_delta") this.text += ev.text;
    this.held.push({ chunk, end: this.text.length });
  }

  /** The chunks now safe to send (at the end: all of them, after the final check), or the block. */
  async take(final: boolean, signal?: AbortSignal): Promise<GateOutcome> {
    const limit = final ? Infinity : this.text.length - this.session.holdback;
    let n = 0;
    while (n < this.held.length && this.held[n]!.end <= limit) n++;
    if (!final && (n === 0 || limit - this.checkedAt < this.session.step)) return NOTHING;
    const verdict = await this.session.checkAnswer(this.text, final, signal);
    this.checkedAt = this.text.length;
    if (!verdict.ok) {
      this.session.outcome = `blocked by ${verdict.guard} (post_response)`;
      this.held.length = 0;
      return { ok: false, error: verdict.error };
    }
    const end = n ? this.held[n - 1]!.end : this.released;
    const out = this.held.splice(0, n).map((h) => h.chunk);
    if (verdict.value.masks.length) {
      this.session.outcome = `redacted by ${verdict.value.redactedBy.join(",")} (post_response)`;
      const ranges = mergeRanges(rangesOf(verdict.value.masks, this.text));
      let at = this.released;
      for (const c of out)
        for (const ev of c.events)
          if (ev.type === "text_delta" || ev.type === "reasoning_delta") {
            const from = at;
            at += ev.text.length;
            ev.text = maskPiece(ev.text, from, ranges);
          }
    }
    this.released = end;
    return { ok: true, value: out };
  }
}
