/** The masking rules the stream gate relies on: a match split across deltas is masked once, nowhere leaked. */
import { describe, expect, it } from "vitest";
import { guardrailSchema, type GuardrailConfig } from "../../config/schema";
import type { UpstreamChunk } from "../upstreams/text-types";
import { compileGuard } from "./registry";
import { mergeRanges, maskPiece, piiRanges, redact, REDACTED } from "./rules";
import { GuardSession } from "./session";
import { StreamGate } from "./stream-gate";

describe("masking", () => {
  it("finds emails, Luhn-valid card numbers, SSNs and vendor keys; not any digit run", () => {
    const text = "mail a.b@example.co.uk, card 4242 4242 4242 4242, not 1234 5678 9012 3456, ssn 123-45-6789, key sk-proj-abcdefghijklmnopqrstuvwx";
    expect(redact(text, piiRanges(text))).toBe(`mail ${REDACTED}, card ${REDACTED}, not 1234 5678 9012 3456, ssn ${REDACTED}, key ${REDACTED}`);
  });

  it("masks a match split across pieces once, in the piece where it starts", () => {
    const text = "say hello@example.com ok";
    const ranges = mergeRanges(piiRanges(text));
    const pieces = ["say hel", "lo@exa", "mple.com", " ok"];
    let at = 0;
    const out = pieces.map((p) => {
      const m = maskPiece(p, at, ranges);
      at += p.length;
      return m;
    });
    expect(out).toEqual(["say [REDACTED]", "", "", " ok"]);
  });
});

const chunk = (text: string): UpstreamChunk => ({ events: [{ type: "text_delta", text }] });
const session = (g: Record<string, unknown>) => new GuardSession("org", "m", [], [compileGuard(guardrailSchema.parse(g) as GuardrailConfig)], true);
const texts = (cs: UpstreamChunk[]) => cs.map((c) => (c.events[0] as { text: string }).text).join("");

describe("the stream gate", () => {
  it("holdback N releases all but the last N characters, masked, and the rest at the end", async () => {
    const gate = new StreamGate(session({ id: "p", stage: "post_response", type: "pii", stream: "holdback", holdback: 10 }));
    let sent = "";
    for (const piece of ["Write to ", "bob@", "example.com", " today, ", "thanks a lot"]) {
      gate.push(chunk(piece));
      const r = await gate.take(false);
      if (!r.ok) throw new Error("blocked");
      sent += texts(r.value);
    }
    expect(sent.length).toBeGreaterThan(0);
    expect(sent).not.toContain("bob@");
    const end = await gate.take(true);
    if (!end.ok) throw new Error("blocked");
    expect(sent + texts(end.value)).toBe("Write to [REDACTED] today, thanks a lot");
  });

  it("masks reasoning text shown to the client too", async () => {
    const gate = new StreamGate(session({ id: "p", stage: "post_response", type: "pii" }));
    gate.push({ events: [{ type: "reasoning_delta", text: "the user is eve@example.com" }] });
    gate.push(chunk(" Done."));
    const end = await gate.take(true);
    expect(end.ok && end.value.map((c) => (c.events[0] as { text: string }).text)).toEqual(["the user is [REDACTED]", " Done."]);
  });

  it("buffer releases nothing before the end", async () => {
    const gate = new StreamGate(session({ id: "p", stage: "post_response", type: "pii" }));
    gate.push(chunk("hello there"));
    expect(await gate.take(false)).toEqual({ ok: true, value: [] });
    const end = await gate.take(true);
    expect(end.ok && texts(end.value)).toBe("hello there");
  });

  it("a block drops what is held", async () => {
    const gate = new StreamGate(session({ id: "b", stage: "post_response", type: "regex", pattern: "SECRET", action: "block", stream: "holdback", holdback: 4 }));
    gate.push(chunk("fine words "));
    gate.push(chunk("and more words "));
    const first = await gate.take(false);
    // Whole chunks go: the first ends before the last 4 characters, the second does not.
    expect(first.ok && texts(first.value)).toBe("fine words ");
    gate.push(chunk("SECRET"));
    const r = await gate.take(false);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe("content_policy");
  });
});
