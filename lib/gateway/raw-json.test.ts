import { describe, expect, it } from "vitest";
import { parseJsonBody } from "./body";
import { scanJson, toJson } from "./raw-json";

/** The per-character reference the scanner replaced. */
function referenceDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

const parse = (text: string) => {
  const r = parseJsonBody(Buffer.from(text));
  if (!r.ok) throw new Error(r.error.message);
  return r.value as Record<string, unknown>;
};

const bodies = [
  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
  ` { "model" : "m" , "messages" : [ {"role":"user","content":"a \\"quoted\\" [brace] {x}"} ] , "stream" : true } `,
  `{"a":{"b":{"c":[1,2,{"d":"\\\\"}]}},"e":"\\\\\\"","f":[],"g":{}}`,
  `{"messages":[1],"messages":[2,3],"tools":[{"name":"t\\u00e9"}]}`,
  `{"text":"é ü 😀 中文","nested":{"k":"}"},"n":null,"x":[[[["deep"]]]]}`,
  `{"__proto__":{"polluted":true},"input":[{"type":"message"}]}`,
  `{"k\\"ey":[1],"k\\\\":{"v":"\\\\\\\\"}}`,
];

describe("scanJson", () => {
  it.each(bodies)("finds the depth the per-character scan finds: %s", (text) => {
    expect(scanJson(text).depth).toBe(referenceDepth(text));
  });

  it("locates each root member's value (the last of duplicates)", () => {
    const text = bodies[3]!;
    const spans = scanJson(text).members;
    const [a, b] = spans.get('"messages"')!;
    expect(JSON.parse(text.slice(a, b))).toEqual([2, 3]);
  });

  it("agrees with the reference on random structures with hostile strings", () => {
    const pieces = ['"', "\\", "[", "]", "{", "}", ",", ":", "a", " "];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), Math.floor((seed / 2 ** 31) * n)); // high bits: the low ones cycle
    const value = (d: number): unknown => {
      const k = rand(d > 5 ? 2 : 4);
      if (k === 0) return Array.from({ length: rand(6) }, () => pieces[rand(pieces.length)]).join("");
      if (k === 1) return rand(100);
      if (k === 2) return Array.from({ length: rand(4) }, () => value(d + 1));
      return Object.fromEntries(Array.from({ length: rand(4) }, () => [String(value(9)), value(d + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const text = JSON.stringify({ root: value(0), other: value(0) });
      expect(scanJson(text).depth).toBe(referenceDepth(text));
      const parsed = parse(text);
      expect(JSON.parse(toJson({ ...parsed, model: "upstream" }).toString())).toEqual({ ...parsed, model: "upstream" });
    }
  });
});

describe("toJson", () => {
  it.each(bodies)("serialises a passthrough copy exactly as JSON.stringify would mean it: %s", (text) => {
    const raw = parse(text);
    const body = { ...raw, model: "upstream-model", extra: { added: [1, "two"] }, gone: undefined };
    expect(JSON.parse(toJson(body).toString())).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it("copies the client's text for untouched members and serialises replaced ones", () => {
    const raw = parse(`{"model":"m","messages":[ {"role":"user",   "content":"hi"} ],"stream_options":{"x":1}}`);
    const out = toJson({ ...raw, stream_options: { include_usage: true } }).toString();
    expect(out).toContain(`[ {"role":"user",   "content":"hi"} ]`);
    expect(JSON.parse(out).stream_options).toEqual({ include_usage: true });
  });

  it("serialises objects it never saw, and non-objects, like JSON.stringify", () => {
    for (const v of [null, 1, "s", [1, { a: 2 }], { a: new Date(0), b: undefined }]) expect(toJson(v).toString()).toBe(JSON.stringify(v));
  });

  it("copies the client's bytes exactly, also after non-ASCII text and a byte-order mark", () => {
    const big = "é 中文 😀 ".repeat(2000); // a member long enough to be written as its own part
    for (const bom of [false, true]) {
      const text = `{"note":"ü","messages":[{"role":"user","content":"${big}"}],"tools":[{"name":"t\\u00e9"}],"model":"m"}`;
      const bytes = Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text)]);
      const r = parseJsonBody(bytes);
      if (!r.ok) throw new Error(r.error.message);
      const raw = r.value as Record<string, unknown>;
      const out = toJson({ ...raw, model: "upstream", extra: big }).toString();
      expect(out).toContain(`"messages":[{"role":"user","content":"${big}"}]`);
      expect(out).toContain(`"tools":[{"name":"t\\u00e9"}]`);
      expect(JSON.parse(out)).toEqual({ ...raw, model: "upstream", extra: big });
    }
  });

  it("leaves room for the client's bytes after a member whose text is not ASCII", () => {
    // Sized as if ASCII: the multi-byte member fills the room counted for the copied one after it.
    const raw = parse(`{"note":"${"ü".repeat(100)}","messages":[{"role":"user","content":"${"x".repeat(300)}"}]}`);
    const out = toJson({ ...raw, model: "upstream" });
    expect(JSON.parse(out.toString())).toEqual({ ...raw, model: "upstream" });
  });

  it("writes converted bodies byte for byte as JSON.stringify, however much of them is not ASCII", () => {
    // Sized as if ASCII, grown when a part is not: multi-byte text early, late, split at any point.
    const ascii = "x".repeat(20_000);
    for (const odd of ["é", "中文", "😀", "\ud83d"]) {
      for (const at of [0, 7, 19_999]) {
        const text = ascii.slice(0, at) + odd.repeat(3000) + ascii.slice(at);
        const body = { model: "m", messages: [{ role: "user", content: ascii }, { role: "assistant", content: text }, { role: "user", content: odd }], n: 1 };
        expect(toJson(body).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
      }
    }
  });
});

describe("toJson with the client's JSON as source (converted bodies)", () => {
  // Escaped otherwise than JSON.stringify would: its bytes in the output show they were copied.
  const long = (tag: string) => String.raw`${tag} line one\nline \"two\" \u00e9 \/ ` + "x".repeat(200);
  const decoded = (tag: string) => JSON.parse(`"${long(tag)}"`) as string;

  it("writes the client's long strings as the client wrote them, and the rest as JSON.stringify", () => {
    for (const bom of [false, true]) {
      const text = `{"system":"${long("sys")}","messages":[{"role":"user","content":[{"type":"text","text":"${long("a")}"}]},{"role":"assistant","content":"é 中文 ${long("b")}"}],"short":"hi"}`;
      const bytes = Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text)]);
      const r = parseJsonBody(bytes);
      if (!r.ok) throw new Error(r.error.message);
      const src = r.value as { system: string; messages: [{ content: [{ text: string }] }, { content: string }] };
      // A conversion: new objects around the client's strings, a new string, a number, undefined.
      const body = {
        model: "up",
        messages: [
          { role: "system", content: src.system },
          { role: "user", content: src.messages[0].content[0].text, name: undefined },
          { role: "assistant", content: src.messages[1].content },
          { role: "user", content: decoded("not the client's") },
        ],
        max_tokens: 5,
      };
      const out = toJson(body, src).toString();
      expect(out).toContain(`"content":"${long("sys")}"`);
      expect(out).toContain(`"content":"${long("a")}"`);
      expect(out).toContain(`"content":"é 中文 ${long("b")}"`);
      expect(out).toContain(JSON.stringify(decoded("not the client's")));
      expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(body)));
    }
  });

  it("writes exactly JSON.stringify's bytes for anything it did not take from the client", () => {
    const src = parse(`{"messages":[{"content":"${long("a")}"}]}`);
    const when = new Date(0);
    const body = {
      model: "m",
      a: [1, -0, NaN, null, undefined, () => 1, Symbol("s"), "é", { toJSON: () => "custom" }, when, [], {}],
      b: { skip: undefined, f: () => 1, gone: { toJSON: () => undefined }, nested: { deep: [{ x: "y" }] } },
      c: Object.assign(Object.create(null), { plain: true }),
      d: "x".repeat(500),
      gone: undefined,
    };
    expect(toJson(body, src).toString()).toBe(JSON.stringify(body));
  });

  it("tells apart long strings that share their length and sampled characters, however many", () => {
    // 300 characters: eight sampled positions (every 37th from the end) hold "s"; the strings
    // differ only between them, so every one has the same fingerprint.
    const variant = (j: number) => {
      const chars: string[] = Array.from({ length: 300 }, (_, i) => ((300 - 1 - i) % 37 === 0 ? "s" : "a"));
      chars[1] = String.fromCharCode(98 + (j % 20));
      chars[2] = String.fromCharCode(98 + Math.floor(j / 20));
      return chars.join("");
    };
    const escaped = "\\u0061"; // "a" as the client escaped it: a copied string shows it
    const texts = Array.from({ length: 12 }, (_, j) => escaped + variant(j));
    const src = parse(`{"messages":[${texts.map((t) => `"${t}"`).join(",")}]}`) as { messages: string[] };
    const body = { model: "m", messages: [...src.messages].reverse().map((content) => ({ role: "user", content })) };
    const out = toJson(body, src).toString();
    expect(JSON.parse(out)).toEqual(body);
    // The first four of a fingerprint are copied (with the client's escape), the rest written by V8.
    expect(out.split(escaped).length - 1).toBe(4);
  });

  it("never takes one string's bytes for another: duplicate keys, integer-like keys, random escapes", () => {
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), Math.floor((seed / 2 ** 31) * n)); // high bits: the low ones cycle
    const escapeOddly = (str: string) =>
      [...str].map((ch) => (ch === '"' ? '\\"' : ch === "\\" ? "\\\\" : ch === "\n" ? "\\n" : rand(3) === 0 ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}` : ch)).join("");
    const str = () => Array.from({ length: 100 + rand(120) }, () => 'ab"\\\né/ '[rand(8)]).join("") + rand(1000);
    // Writes JSON text with duplicate keys, integer-like keys and escapes JSON.stringify never uses.
    const text = (d: number): string => {
      const k = rand(d > 4 ? 2 : 4);
      if (k === 0) return `"${escapeOddly(str())}"`;
      if (k === 1) return String(rand(100));
      if (k === 2) return `[${Array.from({ length: rand(4) }, () => text(d + 1)).join(",")}]`;
      const keys = Array.from({ length: rand(4) }, () => (rand(3) === 0 ? String(rand(3)) : ["a", "b", "c"][rand(3)]!));
      return `{${keys.map((key) => `"${key}":${text(d + 1)}`).join(",")}}`;
    };
    const stringsOf = (v: unknown, out: string[] = []): string[] => {
      if (typeof v === "string") out.push(v);
      else if (v && typeof v === "object") for (const x of Object.values(v)) stringsOf(x, out);
      return out;
    };
    for (let i = 0; i < 300; i++) {
      const src = parse(`{"root":${text(0)},"other":${text(0)}}`);
      const body = { model: "m", converted: stringsOf(src).map((s, j) => (j % 2 ? { note: "ü".repeat(j * 10), text: s } : s)), also: [stringsOf(src).reverse()] };
      expect(JSON.parse(toJson(body, src).toString())).toEqual(body);
    }
  });
});

describe("parseJsonBody", () => {
  it("reads ASCII and UTF-8 bodies alike, drops a byte-order mark and refuses invalid UTF-8", () => {
    for (const text of [`{"a":"plain ascii \\u00e9"}`, `{"a":"é 中文 😀"}`]) {
      const r = parseJsonBody(Buffer.from(text));
      expect(r.ok && r.value).toEqual(JSON.parse(text));
      const withBom = parseJsonBody(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
      expect(withBom.ok && withBom.value).toEqual(JSON.parse(text));
    }
    const bad = parseJsonBody(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])); // {"a":"<broken>"}
    expect(!bad.ok && bad.error.message).toBe("Request body is not valid UTF-8.");
  });
});
