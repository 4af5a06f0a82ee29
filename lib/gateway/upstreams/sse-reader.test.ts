/**
 * The text path reads an upstream's SSE a network read at a time (decision 0078): the messages
 * one read completed come as one batch, an event split across reads comes with the read that
 * ends it, and a decoder that refuses an event ends the stream after the values before it.
 */
import { describe, expect, it } from "vitest";
import { readSse, readSseBatches, UpstreamStreamError } from "./sse-reader";
import { errors } from "../errors";

/** A body whose reads are exactly these strings. */
async function* reads(...parts: string[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield Buffer.from(p);
}

const signal = new AbortController().signal;

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("readSseBatches", () => {
  it("gives the messages of one read as one batch, an event split across reads with the read that ends it, and the end's value with the body's end", async () => {
    const batches = await collect(readSseBatches(reads("data: a\n\ndata: b\n\nda", "ta: c\n\n", ": keep-alive\n\n", "data: d\n\n"), signal, (m) => m.data, () => "end"));
    // The comment-only read completes no message: no empty batch.
    expect(batches).toEqual([["a", "b"], ["c"], ["d"], ["end"]]);
  });

  it("ends with the values before an event the decoder refuses, then its error; the body is released", async () => {
    let destroyed = false;
    const body = Object.assign(reads("data: a\n\ndata: bad\n\ndata: c\n\n", "data: d\n\n"), { destroyed: false, destroy: () => void (destroyed = true) });
    const refusal = new UpstreamStreamError(errors.upstream("The upstream failed mid-stream: boom"), false);
    const got: string[][] = [];
    const failed = await (async () => {
      for await (const b of readSseBatches(body, signal, (m) => (m.data === "bad" ? (() => { throw refusal; })() : m.data), () => "end")) got.push(b);
    })().catch((e: unknown) => e);
    expect(got).toEqual([["a"]]);
    expect(failed).toBe(refusal);
    expect(destroyed).toBe(true);
  });

  it("turns a transport failure into an UpstreamStreamError", async () => {
    async function* broken(): AsyncGenerator<Buffer> {
      yield Buffer.from("data: a\n\n");
      throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    }
    const got: string[][] = [];
    const failed = await (async () => {
      for await (const b of readSseBatches(broken(), signal, (m) => m.data)) got.push(b);
    })().catch((e: unknown) => e);
    expect(got).toEqual([["a"]]);
    expect(failed).toBeInstanceOf(UpstreamStreamError);
  });

  it("readSse (audio and image streams) still gives one message at a time", async () => {
    const msgs = await collect(readSse(reads("event: x\ndata: 1\n\ndata: 2\n\n"), signal));
    expect(msgs.map((m) => [m.event, m.data])).toEqual([["x", "1"], [undefined, "2"]]);
  });
});
