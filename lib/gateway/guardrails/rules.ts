/**
 * The built-in checks (a regex, the PII and secret patterns) and the one way a text is redacted:
 * a check answers the character ranges it matched; the stage decides whether they block or are
 * masked. Ranges, not a rewritten string, so a stream's deltas can be masked where they lie.
 */

/** What a masked match is replaced by. */
export const REDACTED = "[REDACTED]";

export type Range = readonly [start: number, end: number];

/** Luhn's check, so a run of digits is only a card number when it could be one. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** Personal data and secrets: emails, card numbers, US social security numbers, API keys of the common vendors. */
const PII: { name: string; re: RegExp; valid?: (m: string) => boolean }[] = [
  { name: "email", re: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  { name: "card", re: /\b\d(?:[ -]?\d){12,18}\b/g, valid: (m) => luhn(m.replace(/[ -]/g, "")) },
  { name: "ssn", re: /\b\d{3}-\d{2}-\d{4}\b/g },
  {
    name: "api_key",
    re: /\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|sk_live_[A-Za-z0-9]{20,})\b/g,
  },
];

function matches(re: RegExp, text: string, valid?: (m: string) => boolean, out: Range[] = []): Range[] {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    if (!valid || valid(m[0])) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

/** Ranges of personal data or secrets in `text`. */
export function piiRanges(text: string): Range[] {
  const out: Range[] = [];
  for (const p of PII) matches(p.re, text, p.valid, out);
  return out;
}

/** A configured pattern, compiled once (global, Unicode). */
export function compilePattern(pattern: string, ignoreCase = false): RegExp {
  return new RegExp(pattern, ignoreCase ? "gui" : "gu");
}

export function regexRanges(re: RegExp, text: string): Range[] {
  return matches(re, text);
}

/** Every occurrence of each literal (a webhook's `redact` list). */
export function literalRanges(literals: readonly string[], text: string): Range[] {
  const out: Range[] = [];
  for (const lit of literals) {
    if (!lit) continue;
    for (let i = text.indexOf(lit); i >= 0; i = text.indexOf(lit, i + lit.length)) out.push([i, i + lit.length]);
  }
  return out;
}

/** Sorted, overlapping and touching ranges merged. */
export function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/**
 * The part `[from, from + piece.length)` of a text, masked by `ranges` (merged, in the whole
 * text's offsets): a masked range shows REDACTED once, in the piece where it starts.
 */
export function maskPiece(piece: string, from: number, ranges: readonly Range[]): string {
  const to = from + piece.length;
  let out = "";
  let at = from;
  for (const [s, e] of ranges) {
    if (e <= from || s >= to) continue;
    if (s > at) out += piece.slice(at - from, s - from);
    if (s >= from) out += REDACTED;
    at = Math.min(e, to);
  }
  return at < to ? out + piece.slice(at - from) : out;
}

/** `text` with every range masked. */
export function redact(text: string, ranges: readonly Range[]): string {
  return ranges.length ? maskPiece(text, 0, mergeRanges(ranges)) : text;
}
