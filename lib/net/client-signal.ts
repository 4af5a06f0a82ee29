/**
 * The signal that a client went away, for server.ts to hand each API request.
 *
 * Not `new AbortController().signal`: on Node 20 every such signal gets a hidden class (map) of
 * its own — Node builds it as an EventTarget and then swaps its prototype — and V8's
 * young-generation collector keeps a young object alive while an old map refers to it. So each
 * request's signal, with every listener closure and request object it reaches while in flight,
 * was promoted to the old generation and stayed until the next full collection: most of what
 * each young collection copied, and those collections were the gateway's slowest requests
 * (decision 0033). A subclass of EventTarget shares one map.
 *
 * It is the part of AbortSignal that the gateway and undici use (`aborted`, `reason`, the
 * "abort" event, `onabort`, `throwIfAborted`); it is not an `instanceof AbortSignal`, so it must
 * not be given to an API that checks that (fetch, AbortSignal.any): none in the request path.
 */
export class ClientSignal extends EventTarget implements AbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((this: AbortSignal, ev: Event) => unknown) | null = null;

  /** Like AbortController.abort: once; the reason defaults to an AbortError. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException("This operation was aborted", "AbortError");
    const ev = new Event("abort");
    this.onabort?.call(this, ev);
    this.dispatchEvent(ev);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
}
