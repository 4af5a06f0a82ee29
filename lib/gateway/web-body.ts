/** A gateway body as a web ReadableStream that pulls one chunk at a time (Next route handlers). */
import type { GatewayBody } from "./http";

const encoder = new TextEncoder();

export function toWebBody(body: GatewayBody): BodyInit | null {
  if (body === null || typeof body === "string") return body;
  if (body instanceof Uint8Array) return body as unknown as BodyInit;
  const it = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === "string" ? encoder.encode(value) : new Uint8Array(value));
      } catch (err) {
        controller.error(err);
      }
    },
    // The client went away: ending the iterator runs the handler's cleanup (upstream abort, settle).
    async cancel() {
      await it.return?.();
    },
  });
}
