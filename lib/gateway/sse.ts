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
