/**
 * Token counts without a tokenizer. Two different questions:
 * - `promptTokenBound`: a TRUE upper bound for the hold. Every BPE/SentencePiece tokenizer the
 *   upstreams use spends at most one token per UTF-8 byte (byte fallback), so the byte length
 *   bounds the text; images and per-message framing get generous fixed allowances.
 * - `estimateTokens`: a fair count for billing when an upstream reports no usage (and for the
 *   demo upstream): about four characters per token, never fewer than the words.
 */
import type { CanonicalRequest, ContentPart, DocumentPart } from "./canonical";

/** No provider we speak charges more than this for one image (Anthropic ~1.6k, OpenAI tiles ~2.5k). */
export const IMAGE_TOKEN_BOUND = 4096;
/** Role markers and separators per message, generously. */
const PER_MESSAGE_BOUND = 16;
const PER_REQUEST_BOUND = 64;

export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

function partBound(p: ContentPart): number {
  switch (p.type) {
    case "text":
      return utf8Bytes(p.text);
    case "image":
      return IMAGE_TOKEN_BOUND;
    case "document":
      return documentBound(p);
    case "tool_call":
      return utf8Bytes(p.name) + utf8Bytes(p.arguments) + PER_MESSAGE_BOUND;
    case "tool_result":
      return p.content.reduce((n, c) => n + partBound(c), PER_MESSAGE_BOUND + (p.name ? utf8Bytes(p.name) : 0));
    case "reasoning":
      return utf8Bytes(p.text) + (p.signature?.length ?? 0) + (p.redacted?.length ?? 0) + PER_MESSAGE_BOUND;
  }
}

/** Per PDF page: its text (bounded by the bytes) plus the page image some vendors add (Anthropic). */
const PDF_PAGE_BOUND = IMAGE_TOKEN_BOUND;
/** A document behind a URL, sized before anyone fetched it: Anthropic's 100-page limit. */
export const DOCUMENT_URL_TOKEN_BOUND = 100 * (PDF_PAGE_BOUND + 1024);

function documentBound(p: DocumentPart): number {
  const src = p.source;
  if (src.kind === "text") return utf8Bytes(src.text) + PER_MESSAGE_BOUND;
  if (src.kind === "url") return DOCUMENT_URL_TOKEN_BOUND;
  // Compressed PDF text can expand, so the bytes alone are no bound: add a page allowance per page object.
  const bytes = Buffer.from(src.data, "base64");
  const pages = Math.max(1, bytes.toString("latin1").match(/\/Type\s*\/Page(?![s\w])/g)?.length ?? 0);
  return src.data.length + pages * (PDF_PAGE_BOUND + 1024) + PER_MESSAGE_BOUND;
}

export function promptTokenBound(req: CanonicalRequest): number {
  let n = PER_REQUEST_BOUND;
  if (req.system) n += utf8Bytes(req.system) + PER_MESSAGE_BOUND;
  for (const m of req.messages) {
    n += PER_MESSAGE_BOUND;
    for (const p of m.parts) n += partBound(p);
  }
  // Tool definitions are rendered into the prompt by every provider.
  if (req.tools?.length) n += utf8Bytes(JSON.stringify(req.tools)) + req.tools.length * PER_MESSAGE_BOUND + 256;
  if (req.responseFormat?.type === "json_schema") n += utf8Bytes(JSON.stringify(req.responseFormat.schema)) + 64;
  return n;
}

/**
 * Upper bound for a passthrough body, whose fields we do not all model (AM thinking blocks in
 * history, …): every byte of the JSON counts, except inline image data, which is bounded per image.
 */
export function rawBodyTokenBound(rawJsonBytes: number, req: CanonicalRequest): number {
  let imageBytes = 0;
  let images = 0;
  const visit = (p: ContentPart) => {
    if (p.type === "image") {
      images++;
      if (p.source.kind === "base64") imageBytes += p.source.data.length;
    } else if (p.type === "tool_result") p.content.forEach(visit);
  };
  for (const m of req.messages) m.parts.forEach(visit);
  return Math.max(promptTokenBound(req), rawJsonBytes - imageBytes + images * IMAGE_TOKEN_BOUND + PER_REQUEST_BOUND);
}

export function estimateTokens(text: string): number {
  if (text === "") return 0;
  return Math.max(countWords(text), Math.ceil(text.length / 4));
}

/** JavaScript's `\s` below U+0100 (tab to carriage return, space, no-break space). */
const SPACE = new Uint8Array(256);
for (const c of [9, 10, 11, 12, 13, 32, 0xa0]) SPACE[c] = 1;
/** JavaScript's `\s` above U+00FF. */
const wideSpace = (c: number) => c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

/**
 * `text.split(/\s+/).filter(Boolean).length`, without making the array: an agent's prompt is
 * hundreds of kilobytes, counted before an Anthropic stream's first event (message_start), and
 * the split made one string per word (700 KB: ~6 ms, a loop ~1.5 ms).
 */
export function countWords(text: string): number {
  let words = 0;
  let prev = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c < 256 ? SPACE[c]! : wideSpace(c) ? 1 : 0;
    words += prev & (space ^ 1);
    prev = space;
  }
  return words;
}

/** A fair prompt count for billing when the upstream reported none (never above the bound). */
export function estimatePromptTokens(req: CanonicalRequest): number {
  let n = 3;
  if (req.system) n += estimateTokens(req.system) + 4;
  for (const m of req.messages) {
    n += 4;
    for (const p of m.parts) {
      if (p.type === "text") n += estimateTokens(p.text);
      else if (p.type === "image") n += 765;
      else if (p.type === "document") n += p.source.kind === "text" ? estimateTokens(p.source.text) : 1500;
      else if (p.type === "tool_call") n += estimateTokens(p.name) + estimateTokens(p.arguments);
      else if (p.type === "reasoning") n += estimateTokens(p.text);
      else for (const c of p.content) n += c.type === "text" ? estimateTokens(c.text) : 765;
    }
  }
  if (req.tools?.length) n += estimateTokens(JSON.stringify(req.tools));
  return Math.min(n, promptTokenBound(req));
}
