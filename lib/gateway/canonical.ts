/**
 * The one canonical text-generation shape every inbound protocol parses into and every upstream
 * adapter speaks from (docs/design.md: "one canonical request/response/stream-event shape in
 * between, not N×N converters"). Protocol quirks stay at the edges: this file has no vendor
 * names in field semantics, only the union of what the four protocols can express and we convert.
 */

/** Where an image's bytes live. Data URLs are split into base64 + media type at parse time. */
export type ImageSource = { kind: "base64"; mediaType: string; data: string } | { kind: "url"; url: string };

/**
 * A prompt-cache breakpoint: the prompt up to and including this part may be cached upstream
 * (Anthropic's `cache_control`, which chat/Responses clients send on parts and tools too).
 * Without a ttl the upstream's default (5 minutes) applies.
 */
export interface CacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

export interface TextPart {
  type: "text";
  text: string;
  cacheControl?: CacheControl;
}

export interface ImagePart {
  type: "image";
  source: ImageSource;
  cacheControl?: CacheControl;
  /** Where the client put it, in its own words (`messages[0].content[1]`), for a 400 naming it. */
  path?: string;
}

/**
 * Where a document's content lives. PDFs (and other files) are base64 with their media type;
 * plain text is kept as text (Anthropic's `text` source, a text part elsewhere); a URL is
 * fetched by the upstream that takes one, or by us for those that need the bytes inline.
 */
export type DocumentSource = { kind: "base64"; mediaType: string; data: string } | { kind: "text"; text: string } | { kind: "url"; url: string };

/** A document (PDF, text file): Messages `document`, chat `file`, Responses `input_file`, Gemini `inlineData application/pdf`. */
export interface DocumentPart {
  type: "document";
  source: DocumentSource;
  /** chat/Responses `filename`; Anthropic's `title`. */
  filename?: string;
  cacheControl?: CacheControl;
  /** Where the client put it, in its own words, for a 400 naming it. */
  path?: string;
}

/**
 * A call the model made. `arguments` is the JSON text (CC/RS carry strings, AM/GC objects).
 * `id` is the id the client sees (it may carry a Gemini signature, see conversion/signatures.ts).
 */
export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  arguments: string;
  /** Gemini's thoughtSignature for this call: only ever sent back to a Gemini upstream. */
  signature?: string;
  /** How the client declared the tool: a Responses `custom` tool takes raw text, not JSON. */
  kind?: "custom";
}

/** Who issued a piece of reasoning: its signature is only valid at that vendor. */
export type ReasoningOrigin = "anthropic" | "gemini" | "openai" | "other";

/**
 * Reasoning the model showed (or hid: `redacted`). Replayed only to the vendor that issued it
 * (Anthropic wants its signed thinking blocks back in tool loops); dropped for any other.
 */
export interface ReasoningPart {
  type: "reasoning";
  text: string;
  origin: ReasoningOrigin;
  signature?: string;
  /** Anthropic redacted_thinking data. */
  redacted?: string;
}

/** What a tool result may hold: text, and the images and documents a tool read (screenshots, files). */
export type ToolResultContent = TextPart | ImagePart | DocumentPart;

/** The caller's answer to a tool call. `name` is known when the protocol carries it (GC does). */
export interface ToolResultPart {
  type: "tool_result";
  callId: string;
  name?: string;
  content: ToolResultContent[];
  isError?: boolean;
  cacheControl?: CacheControl;
}

export type ContentPart = TextPart | ImagePart | DocumentPart | ToolCallPart | ToolResultPart | ReasoningPart;

/** System prompts live in CanonicalRequest.system; tool results ride in user turns. */
export interface CanonicalMessage {
  role: "user" | "assistant";
  parts: ContentPart[];
}

export interface CanonicalTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object; absent = no parameters. */
  parameters?: Record<string, unknown>;
  cacheControl?: CacheControl;
  /**
   * A Responses `custom` tool (free text input, optional grammar): other upstreams get a function
   * with one string parameter `input`, and its calls come back as custom_tool_call items.
   */
  custom?: { format?: unknown };
  /** A member of a Responses `namespace` tool: `name` is `<namespace>__<member>` upstream. */
  namespace?: { name: string; member: string };
}

/**
 * A tool the provider runs itself. Mapped to the target's own where one exists (web search ⇄
 * Anthropic's web search tool ⇄ Gemini googleSearch), otherwise dropped as a hint.
 */
export interface HostedTool {
  type: "web_search" | "code_execution" | "url_context" | "tool_search" | "other";
  /** The client's own name for it, for the dropped-params header. */
  label: string;
}

export type ReasoningEffort = "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/**
 * Reasoning controls of every protocol in one shape (docs/conversion-policy.md, "Reasoning"):
 * AM `thinking`, GC `thinkingConfig`, CC `reasoning_effort`, RS `reasoning`.
 */
export interface ReasoningControl {
  /** false: the client asked for no thinking (always accepted). */
  enabled: boolean;
  effort?: ReasoningEffort;
  budgetTokens?: number;
  /** The model decides how much (AM adaptive, GC thinkingBudget -1). */
  adaptive?: boolean;
  /** The client wants the reasoning text or a summary back. */
  show?: boolean;
}

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string };

export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; name?: string; schema: Record<string, unknown>; strict?: boolean };

export interface CanonicalRequest {
  /** The public model id the client asked for (the upstream name is the route's business). */
  model: string;
  system?: string;
  /**
   * The system prompt as blocks, set only when one carries a cache breakpoint (their texts
   * joined are `system`): Anthropic upstreams need the breakpoint where the client put it.
   */
  systemBlocks?: TextPart[];
  /** OpenAI's prompt-cache routing hint and retention (`in_memory` | `24h`); also the sticky-routing key. */
  promptCacheKey?: string;
  promptCacheRetention?: string;
  messages: CanonicalMessage[];
  tools?: CanonicalTool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** Chat's token log-probabilities: data the client asked for, converted (Gemini) or refused (docs/conversion-policy.md). */
  logprobs?: boolean;
  topLogprobs?: number;
  /** Output cap as the client sent it; the route fills a default before billing and upstream. */
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  /** Candidates asked for; anything but 1 is rejected at parse time (no upstream fans out). */
  n?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseFormat?: ResponseFormat;
  /** End-user id for abuse tracking, where the protocols have one. */
  user?: string;
  reasoning?: ReasoningControl;
  hostedTools?: HostedTool[];
  /** Hints (docs/conversion-policy.md): forwarded where the target has them, else dropped and named. */
  verbosity?: string;
  serviceTier?: string;
  stream: boolean;
  /** CC's stream_options.include_usage: whether the client wants the usage chunk. */
  includeUsage?: boolean;
  /**
   * Fields the client sent that this shape does not carry (AM `thinking`, GC `thinkingConfig`…).
   * Harmless on the same-protocol passthrough, which forwards them; any converted route must
   * answer 400 naming them rather than drop them silently.
   */
  unconvertible?: string[];
  /** Messages: the client set `cache_control` breakpoints (kept on the passthrough, a hint elsewhere). */
  cacheBreakpoints?: boolean;
}

/** Why generation ended, in protocol-neutral words (conversion.md, "Stop / finish reasons"). */
export type StopReason = "end" | "stop_sequence" | "max_tokens" | "tool_calls" | "content_filter";

/**
 * Normalised usage: every token class a vendor bills apart. Build it only with `makeUsage`
 * (lib/gateway/usage.ts), which validates each upstream count.
 *
 * - `inputTokens` is ALL prompt tokens (OpenAI's prompt_tokens / input_tokens, Gemini's
 *   promptTokenCount, Anthropic's input_tokens + cache_creation_input_tokens +
 *   cache_read_input_tokens). The cache classes are parts of it; the uncached part is
 *   `inputTokens − cacheReadTokens − cacheWrite5mTokens − cacheWrite1hTokens` (`usageClasses`).
 * - `outputTokens` is ALL output tokens; `reasoningTokens` is a part of it (never added on top).
 * Absent class = 0.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the upstream's cache (part of inputTokens). */
  cacheReadTokens?: number;
  /** Prompt tokens written to a 5-minute cache (part of inputTokens). */
  cacheWrite5mTokens?: number;
  /** Prompt tokens written to a 1-hour cache (part of inputTokens). */
  cacheWrite1hTokens?: number;
  /** Reasoning/thinking tokens (part of outputTokens). */
  reasoningTokens?: number;
  /** Image tokens the model drew (part of outputTokens; Gemini's candidatesTokensDetails IMAGE). */
  imageOutputTokens?: number;
  /** What the upstream says it charged us (xAI, OpenRouter), in micro-USD: for the log, never billed. */
  reportedCostMicroUsd?: number;
  /** True when we counted (part of) it ourselves because the upstream reported nothing usable. */
  estimated?: boolean;
  /**
   * Set by makeUsage: which of input/output the upstream did not report as a whole number
   * (missing, negative, fractional, `1e999`, `"many"`); the route estimates those.
   */
  unreported?: Array<"input" | "output">;
  /** Upstream fields that were present but not whole numbers (for the log; treated as missing). */
  invalidFields?: string[];
  /** The provider's usage object as received, for audits. */
  raw?: unknown;
}

/** An image the model drew (Gemini image models): always inline bytes. */
export interface OutputImagePart {
  type: "image";
  source: { kind: "base64"; mediaType: string; data: string };
}

export type OutputPart = TextPart | ToolCallPart | ReasoningPart | OutputImagePart;

/** One output token's log-probability, with the most likely alternatives when asked (chat's `logprobs.content[]`). */
export interface TokenLogprob {
  token: string;
  logprob: number;
  topLogprobs: Array<{ token: string; logprob: number }>;
}

export interface CanonicalResponse {
  id: string;
  /** The upstream's model name; protocols render the public id instead. */
  model: string;
  content: OutputPart[];
  stopReason: StopReason;
  stopSequence?: string | null;
  usage: Usage;
  /** The text's token log-probabilities, when the client asked for them. */
  logprobs?: TokenLogprob[];
}

/**
 * Stream events. Tool calls are numbered by `index` in the order they start; argument text
 * arrives in deltas whose concatenation is the JSON arguments. `done` is the single terminal
 * event and carries the final usage (and, once billed, the cost) so that encoders can put the
 * cost into their protocol's last usage event.
 */
export type StreamEvent =
  /**
   * `inputTokens` when the upstream reports the prompt count with its first event (Anthropic,
   * Gemini), with the part of it read from the cache.
   */
  | { type: "start"; id: string; model: string; inputTokens?: number; cacheReadTokens?: number }
  | { type: "text_delta"; text: string }
  /** Reasoning text (AM thinking, GC thought parts, CC reasoning_content). */
  | { type: "reasoning_delta"; text: string }
  /** The end of one reasoning block, with what must be replayed to its issuer. */
  | { type: "reasoning_end"; origin: ReasoningOrigin; signature?: string; redacted?: string }
  | { type: "tool_call_start"; index: number; id: string; name: string; kind?: "custom" }
  | { type: "tool_call_delta"; index: number; arguments: string }
  /** An image the model drew, whole (vendors send each image in one chunk). */
  | { type: "image"; mediaType: string; data: string }
  /** Log-probabilities of the text tokens just streamed (asked for by the client). */
  | { type: "logprobs"; content: TokenLogprob[] }
  /** Partial usage seen mid-stream (AM's message_start, GC's per-chunk counts); metering only. */
  | { type: "usage"; usage: Partial<Usage> }
  | {
      type: "done";
      stopReason: StopReason;
      stopSequence?: string | null;
      usage: Usage | null;
      /** Set only on the billed copy the stream hands the encoder (text-stream.ts); never on a decoder's event. */
      costMicroUsd?: number;
    };

/** Concatenates text parts (for token counting and tool-result flattening). */
export function partsText(parts: ReadonlyArray<ContentPart>): string {
  let out = "";
  for (const p of parts) if (p.type === "text") out += p.text;
  return out;
}

/** `data:image/png;base64,AAAA` → base64 source; anything else → URL source. */
export function imageFromUrl(url: string): ImageSource {
  const m = base64DataUrl(url);
  return m ? { kind: "base64", ...m } : { kind: "url", url };
}

/**
 * `data:MEDIA;base64,DATA` → its media type and data (a slice, not a copy); else null. What the
 * pattern /^data:([^;,]+);base64,(.*)$/s takes, without the pattern's pass over a screenshot's
 * megabyte of base64 to reach its end.
 */
export function base64DataUrl(s: string): { mediaType: string; data: string } | null {
  if (!s.startsWith("data:")) return null;
  let i = 5;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 59 || c === 44) break; // ; or ,
  }
  if (i === 5 || !s.startsWith(";base64,", i)) return null;
  return { mediaType: s.slice(5, i), data: s.slice(i + 8) };
}

/** `data:application/pdf;base64,AAAA` → base64 document; bare base64 is taken as a PDF; text/plain is decoded to text. */
export function documentFromData(fileData: string): DocumentSource {
  const src = base64DataUrl(fileData) ?? { mediaType: "application/pdf", data: fileData };
  if (src.mediaType === "text/plain") return { kind: "text", text: Buffer.from(src.data, "base64").toString("utf8") };
  return { kind: "base64", ...src };
}

/** A document's file name for targets that need one (OpenAI's `filename`). */
export function documentFilename(p: DocumentPart): string {
  if (p.filename) return p.filename;
  return p.source.kind === "base64" && p.source.mediaType !== "application/pdf" ? "document" : "document.pdf";
}

export function imageToUrl(src: ImageSource): string {
  return src.kind === "base64" ? `data:${src.mediaType};base64,${src.data}` : src.url;
}

/** Tool arguments come as JSON text; AM/GC want objects. Invalid JSON keeps its text (conversion.md). */
export function argumentsToObject(args: string): Record<string, unknown> {
  if (args.trim() === "") return {};
  try {
    const v = JSON.parse(args) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
    return { _raw: args };
  } catch {
    return { _raw: args };
  }
}

/** A canonical field name an upstream adapter may reject (rendered in the client's own words). */
export type CanonicalField =
  | "temperature"
  | "top_p"
  | "top_k"
  | "stop"
  | "max_tokens"
  | "n"
  | "seed"
  | "presence_penalty"
  | "frequency_penalty"
  | "response_format"
  | "tools"
  | "tool_choice"
  | "messages"
  | "image"
  | "verbosity"
  | "service_tier"
  | "reasoning";
