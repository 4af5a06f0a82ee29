/**
 * Passthrough bodies go upstream without a second serialisation of what the client sent.
 *
 * A same-protocol passthrough builds its upstream body as a shallow copy of the client's
 * (`{ ...raw, model }`): the big members (`messages`, `contents`, `input`, `tools`) are the very
 * objects JSON.parse made. While parsing, the root object's members are located in the text
 * (one scan that also bounds the nesting depth); each object or array member is remembered
 * with its source text, and `toJson` copies that text instead of serialising the value again
 * (a 1 MB conversation: one string slice instead of ~1.5 ms of JSON.stringify).
 *
 * The rule that keeps this exact: a parsed request value is never mutated in place — anything
 * that changes a member builds a new object, which has no remembered text and is serialised.
 */
const sourceText = new WeakMap<object, string>();

/** Root-object members of a JSON text: key (still escaped, with quotes) → [start, end) of its value. */
export type MemberSpans = Map<string, [number, number]>;

/**
 * One pass over JSON text outside its strings (strings are skipped with indexOf): the deepest
 * [ / { nesting, and where the root object's members lie. The text may be invalid JSON; the
 * answer is then meaningless and JSON.parse will say why.
 */
export function scanJson(text: string): { depth: number; members: MemberSpans } {
  const members: MemberSpans = new Map();
  let depth = 0;
  let max = 0;
  let key: string | null = null;
  let valueStart = -1;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const start = i;
      i = stringEnd(text, i);
      if (i < 0) break;
      // A string at depth 1 with no key pending is a member's key.
      if (depth === 1 && key === null && valueStart < 0) key = text.slice(start, i + 1);
    } else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) {
      if (depth === 1 && key !== null && valueStart >= 0) members.set(key, [valueStart, i]);
      depth--;
    } else if (depth === 1) {
      if (c === 58 && key !== null && valueStart < 0) valueStart = i + 1;
      else if (c === 44 && key !== null && valueStart >= 0) {
        members.set(key, [valueStart, i]);
        key = null;
        valueStart = -1;
      }
    }
  }
  return { depth: max, members };
}

/** Index of the quote that closes the string opening at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let backslashes = 0;
    for (let b = q - 1; text.charCodeAt(b) === 92; b--) backslashes++;
    if (backslashes % 2 === 0) return q;
    from = q + 1;
  }
}

/** After JSON.parse(text) gave `root`: remember the source text of its object and array members. */
export function rememberMembers(text: string, root: unknown, members: MemberSpans): void {
  if (!root || typeof root !== "object" || Array.isArray(root)) return;
  const obj = root as Record<string, unknown>;
  for (const [rawKey, [a, b]] of members) {
    let key: string;
    try {
      key = JSON.parse(rawKey) as string;
    } catch {
      continue;
    }
    const v = obj[key];
    if (v && typeof v === "object") sourceText.set(v, text.slice(a, b));
  }
}

/** JSON.stringify of a body object, copying the client's own text for members taken unchanged. */
export function toJson(body: unknown): string {
  if (!body || typeof body !== "object" || Array.isArray(body)) return JSON.stringify(body);
  let out = "";
  for (const [k, v] of Object.entries(body)) {
    const text = v && typeof v === "object" ? sourceText.get(v) : undefined;
    const value = text ?? JSON.stringify(v);
    if (value === undefined) continue; // undefined, functions and symbols: left out, as JSON.stringify does
    out += `${out ? "," : ""}${JSON.stringify(k)}:${value}`;
  }
  return `{${out}}`;
}
