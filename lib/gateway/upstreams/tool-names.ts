/**
 * Tool names across vendors (reference/conversion.md, "Tool name charsets"): OpenAI (chat and
 * Responses) and Anthropic take `^[a-zA-Z0-9_-]{1,64}$`; Gemini also allows `.` and `:` (MCP
 * style, `server.tool`) and up to 128 characters, starting with a letter or `_`. A name the target
 * refuses goes upstream as a safe stand-in, unique within the request, and every call the model
 * makes comes back under the client's own name (responses and streams): the map rides in the
 * prepared call, so nothing is stored.
 */
import { createHash } from "node:crypto";
import type { CanonicalRequest, CanonicalResponse, ContentPart } from "../canonical";
import type { CompleteResult, PreparedCall, UpstreamChunk } from "./text-types";
import type { ChunkDecoder } from "./text-http-call";
import type { Outcome } from "../errors";

export interface NameRule {
  valid: RegExp;
  max: number;
  /** Characters the target refuses (each becomes `_`). */
  invalidChar: RegExp;
  /** A first character the target refuses gets a `_` before it. */
  badStart?: RegExp;
}

export const OPENAI_TOOL_NAMES: NameRule = { valid: /^[a-zA-Z0-9_-]{1,64}$/, max: 64, invalidChar: /[^a-zA-Z0-9_-]/g };
export const ANTHROPIC_TOOL_NAMES = OPENAI_TOOL_NAMES;
export const GEMINI_TOOL_NAMES: NameRule = { valid: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/, max: 128, invalidChar: /[^a-zA-Z0-9_.:-]/g, badStart: /^[^a-zA-Z_]/ };

const short = (name: string) => createHash("sha256").update(name).digest("hex").slice(0, 8);

/** Every tool name the request uses: declared tools, the forced choice, and calls and results in history. */
function namesOf(req: CanonicalRequest): Set<string> {
  const names = new Set<string>();
  for (const t of req.tools ?? []) names.add(t.name);
  if (req.toolChoice?.type === "tool") names.add(req.toolChoice.name);
  for (const m of req.messages)
    for (const p of m.parts) {
      if (p.type === "tool_call") names.add(p.name);
      else if (p.type === "tool_result" && p.name !== undefined) names.add(p.name);
    }
  return names;
}

/** Client name → upstream name for the names the target refuses; null when every name is fine. */
export function safeToolNames(req: CanonicalRequest, rule: NameRule): Map<string, string> | null {
  const names = namesOf(req);
  const bad = [...names].filter((n) => !rule.valid.test(n));
  if (!bad.length) return null;
  const taken = new Set([...names].filter((n) => rule.valid.test(n)));
  const map = new Map<string, string>();
  for (const name of bad) {
    let s = name.replace(rule.invalidChar, "_");
    if (s === "" || rule.badStart?.test(s)) s = `_${s}`;
    // Too long, or the stand-in is someone else's name: a short hash of the original keeps it unique.
    if (s.length > rule.max || taken.has(s)) s = `${s.slice(0, rule.max - 9)}_${short(name)}`;
    taken.add(s);
    map.set(name, s);
  }
  return map;
}

/** The request under the upstream's names (a new object: parsed values are never changed in place). */
export function renameTools(req: CanonicalRequest, map: Map<string, string>): CanonicalRequest {
  const to = (n: string) => map.get(n) ?? n;
  const part = (p: ContentPart): ContentPart =>
    p.type === "tool_call" && map.has(p.name) ? { ...p, name: to(p.name) } : p.type === "tool_result" && p.name !== undefined && map.has(p.name) ? { ...p, name: to(p.name) } : p;
  return {
    ...req,
    tools: req.tools?.map((t) => (map.has(t.name) ? { ...t, name: to(t.name) } : t)),
    toolChoice: req.toolChoice?.type === "tool" ? { type: "tool", name: to(req.toolChoice.name) } : req.toolChoice,
    messages: req.messages.map((m) => ({ ...m, parts: m.parts.map(part) })),
  };
}

/**
 * For an adapter's prepare: the request to build the body from, and the upstream → client map
 * for the prepared call (absent when no name changed).
 */
export function forTarget(req: CanonicalRequest, rule: NameRule): { request: CanonicalRequest; toolNames?: Record<string, string> } {
  const map = safeToolNames(req, rule);
  if (!map) return { request: req };
  return { request: renameTools(req, map), toolNames: Object.fromEntries([...map].map(([client, up]) => [up, client])) };
}

function restoreResponse(resp: CanonicalResponse, back: Record<string, string>): CanonicalResponse {
  return { ...resp, content: resp.content.map((p) => (p.type === "tool_call" && back[p.name] !== undefined ? { ...p, name: back[p.name]! } : p)) };
}

/** A completed call with the client's tool names back. */
export async function restoreNames(call: PreparedCall, result: Promise<Outcome<CompleteResult>>): Promise<Outcome<CompleteResult>> {
  const r = await result;
  const back = call.toolNames;
  if (!back || !r.ok) return r;
  return { ...r, value: { ...r.value, response: restoreResponse(r.value.response, back) } };
}

/** A stream decoder whose tool-call starts carry the client's names. */
export function restoringDecoder(call: PreparedCall, d: ChunkDecoder): ChunkDecoder {
  const back = call.toolNames;
  if (!back) return d;
  const fix = (c: UpstreamChunk): UpstreamChunk => ({
    ...c,
    events: c.events.map((e) => (e.type === "tool_call_start" && back[e.name] !== undefined ? { ...e, name: back[e.name]! } : e)),
  });
  return {
    push: (data, event) => fix(d.push(data, event)),
    end: () => {
      const last = d.end();
      return last && fix(last);
    },
  };
}
