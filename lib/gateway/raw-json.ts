/**
 * Bodies go upstream without serialising again what the client already wrote.
 *
 * A same-protocol passthrough builds its upstream body as a shallow copy of the client's
 * (`{ ...raw, model }`): the big members (`messages`, `contents`, `input`, `tools`) are the very
 * objects JSON.parse made. While parsing, the root object's members are located in the text
 * (one scan that also bounds the nesting depth); each object or array member is remembered
 * with its source bytes (a view of the request's own buffer), and `toJson` copies those bytes
 * instead of serialising the value again and encoding it to UTF-8 once more.
 *
 * A converted body is new objects, but its long texts are mostly the client's strings, passed
 * on unchanged. The same scan records where each long string lies; when a converted body is
 * written with its source (`toJson(body, source)`), the parsed tree is walked beside that record
 * once, and every string of the body equal to one of the client's is written as the client's
 * bytes — the same value in valid JSON, perhaps escaped otherwise than JSON.stringify would —
 * instead of being escaped again (V8's JSON.stringify of text full of newlines and quotes,
 * agents' usual text, costs several times its JSON.parse).
 *
 * `toJson` answers bytes, not a string: a string body is flattened and encoded by the HTTP
 * client (a 1 MB conversation: ~1 ms), where writing the parts into one buffer is one copy.
 *
 * The rule that keeps this exact: a parsed request value is never mutated in place — anything
 * that changes a member builds a new object, which has no remembered source and is serialised.
 * Strings are values: a string equal to the client's has the client's encoding, wherever it is.
 *
 * What a parse remembers hangs off the parsed objects themselves, under non-enumerable symbols
 * that JSON.stringify, spreads and Object.keys never see — not in a module-wide WeakMap: V8's
 * young-generation collector keeps a long-lived WeakMap's young entries alive, so every
 * request's body would be promoted to the old generation and lengthen every collection after
 * (decision 0033).
 */

/** Root-object members of a JSON text: key (still escaped, with quotes) → [start, end) of its value. */
export type MemberSpans = Map<string, [number, number]>;

/** Strings at least this long (characters, decoded) are copied from the source rather than escaped again. */
export const LONG_STRING = 128;

export interface JsonScan {
  /** The deepest [ / { nesting. */
  depth: number;
  members: MemberSpans;
  /** Per value string (not key) of ≥ LONG_STRING + 2 source characters: [its ordinal among value strings, start, end) — quotes included. */
  strings: number[];
  /** Per array or object, in document order: [1 array / 0 object, members, value strings before its end, containers before its end]. */
  boxes: number[];
}

/**
 * One pass over JSON text outside its strings (strings are skipped with indexOf): the deepest
 * nesting, where the root object's members lie, and where the long strings lie within the
 * containers (to match them with the parsed tree later: `rawStringsOf`). The text may be
 * invalid JSON; the answer is then meaningless and JSON.parse will say why.
 */
export function scanJson(text: string): JsonScan {
  const members: MemberSpans = new Map();
  const strings: number[] = [];
  const boxes: number[] = [];
  const open: number[] = []; // the open containers' indexes into boxes (× 4)
  let max = 0;
  let inObject = false; // the innermost open container is an object
  let expectKey = false; // in an object, after { or ,
  let expectValue = true; // a value may start here (root, after [ , or :)
  let ordinal = 0; // value strings so far
  let key: string | null = null; // root members: the pending key and where its value starts
  let valueStart = -1;
  const countValue = () => {
    if (!inObject && open.length) boxes[open[open.length - 1]! + 1]!++;
    expectValue = false;
  };
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const start = i;
      i = stringEnd(text, i);
      if (i < 0) break;
      if (inObject && expectKey) {
        expectKey = false;
        boxes[open[open.length - 1]! + 1]!++;
        if (open.length === 1) key = text.slice(start, i + 1);
      } else {
        if (expectValue) countValue();
        if (i + 1 - start >= LONG_STRING + 2) strings.push(ordinal, start, i + 1);
        ordinal++;
      }
    } else if (c === 123 || c === 91) {
      if (expectValue) countValue();
      open.push(boxes.length);
      boxes.push(c === 91 ? 1 : 0, 0, 0, 0);
      if (open.length > max) max = open.length;
      inObject = c === 123;
      expectKey = inObject;
      expectValue = !inObject;
    } else if (c === 125 || c === 93) {
      if (open.length === 1 && key !== null && valueStart >= 0) members.set(key, [valueStart, i]);
      const box = open.pop();
      if (box === undefined) break;
      boxes[box + 2] = ordinal;
      boxes[box + 3] = boxes.length / 4;
      inObject = open.length > 0 && boxes[open[open.length - 1]!] === 0;
      expectKey = false;
      expectValue = false;
    } else if (c === 44) {
      if (open.length === 1 && key !== null && valueStart >= 0) {
        members.set(key, [valueStart, i]);
        key = null;
        valueStart = -1;
      }
      if (inObject) expectKey = true;
      else expectValue = true;
    } else if (c === 58) {
      if (open.length === 1 && key !== null && valueStart < 0) valueStart = i + 1;
      expectValue = true;
    } else if (expectValue && c > 32) countValue(); // a number, true, false or null
  }
  return { depth: max, members, strings, boxes };
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

/** A root member's bytes (a view of the request's buffer), on the member. */
const RAW = Symbol("raw-json bytes");

/** On the root: where its long strings lie in its bytes (`JsonScan`, offsets made byte offsets). */
interface Source {
  bytes: Buffer;
  strings: number[];
  boxes: number[];
  /** The long strings matched with the parsed tree, once a converted body asked (`rawStringsOf`). */
  raw?: RawStrings;
}
const SOURCE = Symbol("raw-json source");

function sourceOf(root: unknown): Source | undefined {
  return root && typeof root === "object" ? (root as { [SOURCE]?: Source })[SOURCE] : undefined;
}

/**
 * After JSON.parse(text) gave `root`: remember the source of its object and array members, as
 * views of `bytes`, the buffer `text` was decoded from, and where its long strings lie.
 */
export function rememberSource(text: string, root: unknown, scan: JsonScan, bytes: Buffer): void {
  if (!root || typeof root !== "object") return;
  const { members, strings } = scan;
  const at = byteOffsets(text, bytes, () => {
    const points = [...members.values()].flat();
    for (let i = 0; i < strings.length; i += 3) points.push(strings[i + 1]!, strings[i + 2]!);
    return points;
  });
  if (strings.length && bytes.length !== text.length)
    for (let i = 0; i < strings.length; i += 3) {
      strings[i + 1] = at(strings[i + 1]!);
      strings[i + 2] = at(strings[i + 2]!);
    }
  if (strings.length) Object.defineProperty(root, SOURCE, { value: { bytes, strings, boxes: scan.boxes } satisfies Source });
  if (Array.isArray(root)) return;
  const obj = root as Record<string, unknown>;
  for (const [rawKey, [a, b]] of members) {
    let key: string;
    try {
      key = JSON.parse(rawKey) as string;
    } catch {
      continue;
    }
    const v = obj[key];
    if (v && typeof v === "object") Object.defineProperty(v, RAW, { value: bytes.subarray(at(a), at(b)) });
  }
}

/**
 * Character offsets of `text` → byte offsets in `bytes` (its UTF-8, as a fatal decoder read it).
 * ASCII text: the same numbers. Otherwise the UTF-8 length of the text up to each of `points()`
 * (asked only then), in one pass, after the byte-order mark the decoder dropped, if any.
 */
const same = (i: number) => i;
function byteOffsets(text: string, bytes: Buffer, points: () => number[]): (charOffset: number) => number {
  if (bytes.length === text.length) return same;
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const byChar = new Map<number, number>();
  let from = 0;
  let offset = bom;
  for (const p of [...new Set(points())].sort((x, y) => x - y)) {
    offset += Buffer.byteLength(text.slice(from, p));
    from = p;
    byChar.set(p, offset);
  }
  return (i) => byChar.get(i)!;
}

/**
 * The client's long strings → their bytes as the client wrote them (quotes included), found by
 * walking the parsed tree beside the scan's record once (then cached). Arrays match element by
 * element; an object matches when its keys are its source's in the source's order — not so with a
 * duplicate key (JSON.parse keeps the last) or an integer-like key (listed first): such an
 * object's strings are left out, never mismatched.
 */
function rawStringsOf(root: object, source: Source): RawStrings {
  if (source.raw) return source.raw;
  const { strings, boxes, bytes } = source;
  const map = new RawStrings();
  let box = 0; // the next container, in document order
  let ordinal = 0; // the next value string
  let long = 0; // the next recorded long string (× 3)
  const skip = (b: number) => {
    ordinal = boxes[b + 2]!;
    box = boxes[b + 3]!;
    while (long < strings.length && strings[long]! < ordinal) long += 3;
  };
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      if (strings[long] === ordinal) {
        if (v.length >= LONG_STRING) map.add(v, bytes.subarray(strings[long + 1], strings[long + 2]));
        long += 3;
      }
      ordinal++;
      return;
    }
    if (!v || typeof v !== "object") return;
    const b = box * 4;
    if (Array.isArray(v)) {
      if (boxes[b] !== 1 || boxes[b + 1] !== v.length) return skip(b);
      box++;
      for (let i = 0; i < v.length; i++) walk(v[i]);
      return;
    }
    const keys = Object.keys(v);
    if (boxes[b] !== 0 || boxes[b + 1] !== keys.length || keys.some(integerLike)) return skip(b);
    box++;
    for (const k of keys) walk((v as Record<string, unknown>)[k]);
  };
  walk(root);
  source.raw = map;
  return map;
}

/**
 * Long strings → their source bytes, looked up by a fingerprint (length and eight characters)
 * then by `===`, which is a pointer comparison for the parsed strings a conversion passes on.
 * A `Map<string, …>` would hash every character of every string (1 MB of conversation: ~1.3 ms,
 * four times the rest of the write). A fingerprint keeps its first four strings; later ones are
 * left to V8 to write (correct either way), so however a body was made to collide, a lookup
 * compares at most four strings.
 */
class RawStrings {
  private static readonly BUCKET = 4;
  private readonly buckets = new Map<number, (string | Buffer)[]>(); // [string, bytes, string, bytes, …]
  size = 0;

  add(s: string, raw: Buffer): void {
    const key = fingerprint(s);
    const bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, [s, raw]);
    else if (bucket.length < 2 * RawStrings.BUCKET) bucket.push(s, raw);
    else return;
    this.size++;
  }

  get(s: string): Buffer | undefined {
    const bucket = this.buckets.get(fingerprint(s));
    if (bucket) for (let i = 0; i < bucket.length; i += 2) if (bucket[i] === s) return bucket[i + 1] as Buffer;
    return undefined;
  }
}

function fingerprint(s: string): number {
  const n = s.length;
  const step = n >>> 3;
  let h = n;
  for (let i = 0, at = n - 1; i < 8; i++, at -= step) h = (Math.imul(h, 31) + s.charCodeAt(at)) | 0;
  return h;
}

/** Keys that may be array indexes, which an object lists before all others whatever their place in the source (any key starting with a digit: a cheap superset). */
const integerLike = (k: string) => {
  const c = k.charCodeAt(0);
  return c >= 48 && c <= 57;
};

/**
 * A body object as JSON bytes, copying the client's own bytes for members taken unchanged, and —
 * given the parsed client JSON the body was converted from — for the client's long strings.
 */
export function toJson(body: unknown, source?: unknown): Buffer {
  if (!body || typeof body !== "object" || Array.isArray(body)) return Buffer.from(JSON.stringify(body) ?? "");
  const src = sourceOf(source);
  const strings = src ? rawStringsOf(source as object, src) : undefined;
  const parts: (string | Buffer)[] = [];
  let sep = "{";
  for (const [k, v] of Object.entries(body)) {
    const raw = v && typeof v === "object" ? (v as { [RAW]?: Buffer })[RAW] : undefined;
    if (raw) parts.push(`${sep}${JSON.stringify(k)}:`, raw);
    else if (strings?.size && walkable(v)) {
      parts.push(`${sep}${JSON.stringify(k)}:`);
      writeJson(parts, v, strings);
    } else if (Array.isArray(v)) {
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

/** Values writeJson walks itself: strings, arrays and plain objects without toJSON. */
function walkable(x: unknown): boolean {
  if (typeof x === "string") return true;
  if (x === null || typeof x !== "object") return false;
  if (Array.isArray(x)) return true;
  const proto = Object.getPrototypeOf(x);
  return (proto === Object.prototype || proto === null) && typeof (x as { toJSON?: unknown }).toJSON !== "function";
}

/**
 * JSON.stringify's output for a walkable value as parts, with the client's bytes for strings it
 * knows; anything else (numbers, toJSON, class instances) is V8's to write, and left out or
 * written as null where JSON.stringify would. Small pieces gather in one string between the
 * copied ones.
 */
function writeJson(parts: (string | Buffer)[], v: unknown, strings: RawStrings): void {
  let pending = "";
  const write = (x: unknown): void => {
    if (typeof x === "string") {
      const raw = x.length >= LONG_STRING ? strings.get(x) : undefined;
      if (!raw) pending += JSON.stringify(x);
      else {
        if (pending) parts.push(pending);
        parts.push(raw);
        pending = "";
      }
    } else if (Array.isArray(x)) {
      pending += "[";
      for (let i = 0; i < x.length; i++) {
        if (i) pending += ",";
        if (walkable(x[i])) write(x[i]);
        else pending += JSON.stringify(x[i]) ?? "null";
      }
      pending += "]";
    } else {
      let sep = "{";
      for (const k of Object.keys(x as object)) {
        const y = (x as Record<string, unknown>)[k];
        const leaf = walkable(y) ? null : JSON.stringify(y);
        if (leaf === undefined) continue;
        pending += `${sep}${JSON.stringify(k)}:`;
        sep = ",";
        if (leaf === null) write(y);
        else pending += leaf;
      }
      pending += sep === "{" ? "{}" : "}";
    }
  };
  write(v);
  if (pending) parts.push(pending);
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
      // A multi-byte string before may have filled the room this part was counted in.
      if (at + p.length > out.length) grow(p.length);
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
