/** SSE framing, shared by the protocol encoders and the passthrough adapters. Every event ends with a blank line (the Google SDK rejects an unterminated one). */

export function sseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

export function sseEvent(name: string, value: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`;
}

export const SSE_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  // Proxies such as nginx buffer SSE unless told not to.
  "x-accel-buffering": "no",
};

/**
 * The events in a chunk of a streamed text answer, each with its blank line: the relay writes
 * what one upstream read brought as one chunk (decision 0078), so a reader that handles events
 * one by one splits them here.
 */
export function sseFrames(chunk: string): string[] {
  const frames: string[] = [];
  let from = 0;
  for (let at = chunk.indexOf("\n\n"); at >= 0; at = chunk.indexOf("\n\n", from)) {
    frames.push(chunk.slice(from, at + 2));
    from = at + 2;
  }
  if (from < chunk.length) frames.push(chunk.slice(from));
  return frames;
}
