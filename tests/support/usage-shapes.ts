/**
 * The usage each client protocol shows, where its SDK reads it (streams: as the SDK
 * accumulates it), and what it must say for a set of token classes (input = all prompt tokens).
 */

export type Inbound = "chat" | "responses" | "messages" | "gemini";

export function sseEvents(text: string): Array<{ event?: string; data: any }> {
  const out: Array<{ event?: string; data: any }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (!data.length || data.join("\n") === "[DONE]") continue;
    out.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return out;
}

/** The usage the client reads, where its protocol puts it (streams: as its SDK accumulates it). */
export function clientUsage(inbound: Inbound, stream: boolean, text: string): Record<string, any> {
  if (!stream) {
    const j = JSON.parse(text);
    return inbound === "gemini" ? j.usageMetadata : j.usage;
  }
  const evs = sseEvents(text);
  switch (inbound) {
    case "chat":
      return evs.filter((e) => e.data.usage).at(-1)!.data.usage;
    case "responses":
      return evs.find((e) => e.data.type === "response.completed")!.data.response.usage;
    case "messages": {
      // The SDK starts from message_start's usage and copies message_delta's non-null fields.
      const u = { ...evs.find((e) => e.data.type === "message_start")!.data.message.usage };
      for (const [k, v] of Object.entries(evs.find((e) => e.data.type === "message_delta")!.data.usage)) if (v !== null) u[k] = v;
      return u;
    }
    case "gemini":
      return evs.filter((e) => e.data.usageMetadata).at(-1)!.data.usageMetadata;
  }
}

export interface Classes {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  reasoning: number;
}

/** What each inbound protocol must show for these classes (input = all prompt tokens). */
export function expectedUsage(inbound: Inbound, c: Classes, opts: { sparse?: boolean } = {}): Record<string, unknown> {
  const writes = c.cacheWrite5m + c.cacheWrite1h;
  switch (inbound) {
    case "chat":
      // sparse: an OpenAI-compatible vendor's own usage passed through, with details only where it has them.
      return {
        prompt_tokens: c.input,
        completion_tokens: c.output,
        total_tokens: c.input + c.output,
        ...(opts.sparse && !c.cacheRead ? {} : { prompt_tokens_details: { cached_tokens: c.cacheRead, ...(writes ? { cache_write_tokens: writes } : {}) } }),
        ...(opts.sparse && !c.reasoning ? {} : { completion_tokens_details: { reasoning_tokens: c.reasoning } }),
      };
    case "responses":
      return {
        input_tokens: c.input,
        input_tokens_details: { cached_tokens: c.cacheRead, ...(writes ? { cache_write_tokens: writes } : {}) },
        output_tokens: c.output,
        output_tokens_details: { reasoning_tokens: c.reasoning },
        total_tokens: c.input + c.output,
      };
    case "messages":
      return {
        input_tokens: c.input - c.cacheRead - writes,
        output_tokens: c.output,
        cache_read_input_tokens: c.cacheRead,
        cache_creation_input_tokens: writes,
        cache_creation: { ephemeral_5m_input_tokens: c.cacheWrite5m, ephemeral_1h_input_tokens: c.cacheWrite1h },
      };
    case "gemini":
      return {
        promptTokenCount: c.input,
        candidatesTokenCount: c.output - c.reasoning,
        totalTokenCount: c.input + c.output,
        ...(c.cacheRead ? { cachedContentTokenCount: c.cacheRead } : {}),
        ...(c.reasoning ? { thoughtsTokenCount: c.reasoning } : {}),
      };
  }
}
