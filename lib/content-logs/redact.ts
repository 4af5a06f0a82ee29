/**
 * Redaction of content logs, applied to every string of a record before it is sealed (decision
 * 0059): the built-ins an organisation keeps on, then its own patterns. A match becomes
 * `[REDACTED:<what>]`, so nothing it matched is stored, exported or shown.
 */
import type { ContentLogPolicy } from "../values";

/** Built-in secret shapes: OpenAI/Anthropic-style keys (ours too), AWS, Google, GitHub, Slack, JWTs, bearer tokens. */
const API_KEY =
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}|\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{30,}|\bxox[abposr]-[A-Za-z0-9-]{10,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|\b[Bb]earer\s+[A-Za-z0-9._~+/-]{20,}=*/g;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** 13–19 digits, optionally grouped by spaces or dashes; only Luhn-valid ones are card numbers. */
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Limits on an organisation's own list (checked when saved). */
export const MAX_PATTERNS = 20;
export const MAX_PATTERN_LENGTH = 200;

/** Why a pattern cannot be saved, or null. */
export function patternProblem(p: string): string | null {
  if (!p || p.length > MAX_PATTERN_LENGTH) return `must be 1 to ${MAX_PATTERN_LENGTH} characters`;
  let re: RegExp;
  try {
    re = new RegExp(p, "g");
  } catch (e) {
    return `is not a valid regular expression (${(e as Error).message})`;
  }
  // A pattern that matches nothing at all would redact between every character.
  if (re.test("")) return "matches the empty string";
  return null;
}

export type Redactor = (s: string) => string;

export function redactor(policy: ContentLogPolicy): Redactor {
  const steps: Array<(s: string) => string> = [];
  if (policy.builtins.includes("api_keys")) steps.push((s) => s.replace(API_KEY, "[REDACTED:api_key]"));
  if (policy.builtins.includes("card_numbers")) steps.push((s) => s.replace(CARD, (m) => (luhn(m.replace(/\D/g, "")) ? "[REDACTED:card_number]" : m)));
  if (policy.builtins.includes("emails")) steps.push((s) => s.replace(EMAIL, "[REDACTED:email]"));
  for (const p of policy.redact) {
    if (patternProblem(p)) continue; // checked when saved; an old row never breaks the writer
    const re = new RegExp(p, "g");
    steps.push((s) => s.replace(re, "[REDACTED]"));
  }
  return (s) => {
    for (const step of steps) s = step(s);
    return s;
  };
}

/** A deep copy with every string redacted (keys are ours and kept). */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = k === "type" || k === "role" ? v : redactDeep(v, redact);
    return out as T;
  }
  return value;
}
