/**
 * Passthrough bodies go upstream without a second serialisation of what the client sent.
 *
 * A same-protocol passthrough builds its upstream body as a shallow copy of the client's
 * (`{ ...raw, model }`): the big members (`messages`, `contents`, `input`, `tools`) are the very
 * objects JSON.parse made. While parsing, the root object's members are located in the text
 * (one scan that also bounds the nesting depth); each object or array member is remembered
 * with its source bytes (a view of the request's own buffer), and `toJson` copies those bytes
 * instead of serialising the value again and encoding it to UTF-8 once more.
 *
 * `toJson` answers bytes, not a string: a string body is flattened and encoded by the HTTP
 * client (a 1 MB conversation: ~1 ms), where writing the parts into one buffer is one copy.
 *
 * The rule that keeps this exact: a parsed request value is never mutated in place — anything
 * that changes a member builds a new object, which has no remembered source and is serialised.
 */
const sourceBytes = new WeakMap<object, Buffer>();

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

/**
 * After JSON.parse(text) gave `root`: remember the source of its object and array members, as
 * views of `bytes`, the buffer `text` was decoded from.
 */
export function rememberMembers(text: string, root: unknown, members: MemberSpans, bytes: Buffer): void {
  if (!root || typeof root !== "object" || Array.isArray(root) || !members.size) return;
  const obj = root as Record<string, unknown>;
  const at = byteOffsets(text, bytes, members);
  for (const [rawKey, [a, b]] of members) {
    let key: string;
    try {
      key = JSON.parse(rawKey) as string;
    } catch {
      continue;
    }
    const v = obj[key];
    if (v && typeof v === "object") sourceBytes.set(v, bytes.subarray(at(a), at(b)));
  }
}

/**
 * Character offsets of `text` → byte offsets in `bytes` (its UTF-8, as a fatal decoder read it).
 * ASCII text: the same numbers. Otherwise the UTF-8 length of the text up to each member
 * boundary, in one pass, after the byte-order mark the decoder dropped, if any.
 */
function byteOffsets(text: string, bytes: Buffer, members: MemberSpans): (charOffset: number) => number {
  if (bytes.length === text.length) return (i) => i;
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const points = [...new Set([...members.values()].flat())].sort((x, y) => x - y);
  const byChar = new Map<number, number>();
  let from = 0;
  let offset = bom;
  for (const p of points) {
    offset += Buffer.byteLength(text.slice(from, p));
    from = p;
    byChar.set(p, offset);
  }
  return (i) => byChar.get(i)!;
}

/** A body object as JSON bytes, copying the client's own bytes for members taken unchanged. */
export function toJson(body: unknown): Buffer {
  if (!body || typeof body !== "object" || Array.isArray(body)) return Buffer.from(JSON.stringify(body) ?? "");
  const parts: (string | Buffer)[] = [];
  let sep = "{";
  for (const [k, v] of Object.entries(body)) {
    const raw = v && typeof v === "object" ? sourceBytes.get(v) : undefined;
    if (raw) parts.push(`${sep}${JSON.stringify(k)}:`, raw);
    else if (Array.isArray(v)) {
      // Element by element (a converted conversation): many small strings are cheaper to write
      // than one large one, which V8 builds in pieces and must flatten into fresh memory first.
      parts.push(`${sep}${JSON.stringify(k)}:[`);
      for (let i = 0; i < v.length; i++) {
        if (i) parts.push(",");
        parts.push(JSON.stringify(v[i]) ?? "null"); // as JSON.stringify writes an array's undefined
      }
      parts.push("]");
    } else {
      const value = JSON.stringify(v);
      if (value === undefined) continue; // undefined, functions and symbols: left out, as JSON.stringify does
      parts.push(`${sep}${JSON.stringify(k)}:`, value);
    }
    sep = ",";
  }
  parts.push(sep === "{" ? "{}" : "}");
  let size = 0;
  let bytes = false;
  for (const p of parts) {
    size += p.length;
    if (typeof p !== "string") bytes = true;
  }
  // A small body: one string, one encode (Buffer.from takes it from the shared pool).
  if (!bytes && size < 16_384) return Buffer.from(parts.join(""));
  return concatUtf8(parts, size);
}

const encoder = new TextEncoder();

/**
 * The parts as one buffer of UTF-8, sized as if every string were ASCII — measuring each one's
 * UTF-8 length first would read the whole body once more — and grown when one is not.
 * `length`: the parts' lengths summed (characters for strings, bytes for buffers).
 */
function concatUtf8(parts: readonly (string | Buffer)[], length: number): Buffer {
  let out = Buffer.allocUnsafe(length);
  let at = 0;
  let left = length; // what the parts not yet written need at least
  const grow = (need: number) => {
    const bigger = Buffer.allocUnsafe(at + need + left);
    out.copy(bigger, 0, 0, at);
    out = bigger;
  };
  for (const p of parts) {
    left -= p.length;
    if (typeof p !== "string") {
      at += p.copy(out, at);
      continue;
    }
    const { read, written } = encoder.encodeInto(p, out.subarray(at));
    at += written;
    if (read < p.length) {
      const rest = p.slice(read);
      grow(Buffer.byteLength(rest));
      at += out.write(rest, at);
    }
  }
  return out.subarray(0, at);
}
