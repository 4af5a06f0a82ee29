/**
 * The content log of one text request (docs/content-logs.md, decision 0059): made only when the
 * key's organisation logs prompts and answers (TextDeps.contentLog), so a request with logging
 * off pays one null check. It gathers the answer as it goes (a stream's events reassembled, or
 * the whole answer) and, once the request is settled, queues the write after the reply: the
 * record is built, redacted and sealed there, off the reply's path.
 */
import { getDb } from "../../../db/client";
import { queueContentLog, type ContentLogTarget } from "../../content-logs/store";
import type { ContentRecord, LoggedPart } from "../../views";
import type { CanonicalRequest, ContentPart, OutputPart, StreamEvent, ToolResultContent } from "../canonical";

/** Images and documents up to this size keep their bytes (thumbnails in the inspector); larger ones only their size. */
export const MAX_INLINE_MEDIA_BYTES = 256 * 1024;

/** A drawn image in the logged answer: named with its size, not its bytes (an answer's text stays text). */
function drawn(mediaType: string, base64: string): string {
  return `[image ${mediaType}, ${Math.floor((base64.length * 3) / 4)} bytes]`;
}

export class ContentCapture {
  private text = "";
  private reasoning = "";
  private readonly calls: Array<{ id: string; name: string; arguments: string }> = [];
  private stopReason: string | null = null;
  private written = false;

  constructor(
    private readonly target: ContentLogTarget,
    private readonly req: CanonicalRequest,
  ) {}

  /** One stream event, as the meter sees it. */
  observe(ev: StreamEvent): void {
    switch (ev.type) {
      case "text_delta":
        this.text += ev.text;
        break;
      case "reasoning_delta":
        this.reasoning += ev.text;
        break;
      case "image":
        this.text += drawn(ev.mediaType, ev.data);
        break;
      case "tool_call_start":
        this.calls[ev.index] = { id: ev.id, name: ev.name, arguments: "" };
        break;
      case "tool_call_delta": {
        const c = this.calls[ev.index];
        if (c) c.arguments += ev.arguments;
        break;
      }
      case "done":
        this.stopReason = ev.stopReason;
        break;
    }
  }

  /** A non-streamed answer. */
  complete(content: readonly OutputPart[], stopReason: string): void {
    for (const p of content) {
      if (p.type === "text") this.text += p.text;
      else if (p.type === "reasoning") this.reasoning += p.text;
      else if (p.type === "image") this.text += drawn(p.source.mediaType, p.source.data);
      else this.calls.push({ id: p.id, name: p.name, arguments: p.arguments });
    }
    this.stopReason = stopReason;
  }

  /** Once, when the request settles: `error` is the failure's code when no whole answer came back. */
  settled(stream: boolean, error: string | undefined): void {
    if (this.written) return;
    this.written = true;
    queueContentLog(getDb, this.target, { model: this.req.model, stream }, () => this.record(error));
  }

  private record(error: string | undefined): ContentRecord {
    const r = this.req;
    return {
      v: 1,
      request: {
        model: r.model,
        ...(r.system !== undefined ? { system: r.system } : {}),
        messages: r.messages.map((m) => ({ role: m.role, parts: m.parts.map(loggedPart) })),
        ...(r.tools?.length ? { tools: r.tools.map((t) => t.name) } : {}),
      },
      answer: {
        text: this.text,
        ...(this.reasoning ? { reasoning: this.reasoning } : {}),
        toolCalls: this.calls.filter(Boolean),
        stopReason: this.stopReason,
        ...(error ? { error } : {}),
      },
    };
  }
}

/** Decoded size of base64 text. */
const base64Bytes = (b64: string) => Math.floor((b64.length * 3) / 4);

function loggedPart(p: ContentPart | ToolResultContent): LoggedPart {
  switch (p.type) {
    case "text":
      return { type: "text", text: p.text };
    case "image":
      if (p.source.kind === "url") return { type: "image", url: p.source.url };
      return base64Bytes(p.source.data) <= MAX_INLINE_MEDIA_BYTES
        ? { type: "image", mediaType: p.source.mediaType, data: p.source.data }
        : { type: "image", mediaType: p.source.mediaType, omittedBytes: base64Bytes(p.source.data) };
    case "document": {
      const s = p.source;
      const name = p.filename !== undefined ? { filename: p.filename } : {};
      if (s.kind === "text") return { type: "document", ...name, text: s.text };
      if (s.kind === "url") return { type: "document", ...name, url: s.url };
      return { type: "document", ...name, mediaType: s.mediaType, omittedBytes: base64Bytes(s.data) };
    }
    case "tool_call":
      return { type: "tool_call", id: p.id, name: p.name, arguments: p.arguments };
    case "tool_result":
      return { type: "tool_result", callId: p.callId, ...(p.name ? { name: p.name } : {}), ...(p.isError ? { isError: true } : {}), content: p.content.map(loggedPart) };
    case "reasoning":
      return { type: "reasoning", text: p.text };
  }
}
