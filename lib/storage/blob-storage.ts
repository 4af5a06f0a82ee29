/**
 * Media in a Vercel Blob store, over its HTTP API (docs/decisions/0052-vercel-blob-over-fetch.md).
 * Blobs are private (`x-vercel-blob-access: private`): their URLs answer only with the store's
 * token, so downloads stream through the gateway, which has already authorized them.
 *
 * Uploads stream: the body is cut into 8 MiB parts; one that fits in a part is a single PUT,
 * a longer one a multipart upload sent part by part (one part in memory at a time). Nothing is
 * sent before a part is whole and the blob appears only on the final PUT or "complete", so a
 * failed upload leaves the previous object as it was.
 */
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { assertSafeKey, type ByteRange, type MediaStorage, type StoredObject } from "./media-storage";

export interface BlobConfig {
  /** BLOB_READ_WRITE_TOKEN. */
  token: string;
  /** Default https://vercel.com/api/blob; a loopback fake in tests. */
  apiUrl?: string;
}

const API_VERSION = "12";
/** Vercel Blob's minimum multipart part is 5 MiB; 8 MiB is what @vercel/blob sends. */
const PART_SIZE = 8 * 1024 * 1024;

interface BlobHead {
  url: string;
  size: number;
  contentType: string;
}

export class BlobStorage implements MediaStorage {
  readonly kind = "blob" as const;
  private readonly apiUrl: string;

  constructor(private readonly cfg: BlobConfig) {
    this.apiUrl = (cfg.apiUrl ?? "https://vercel.com/api/blob").replace(/\/$/, "");
  }

  private async api(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Response> {
    // no-store: under Next, fetch is patched and may otherwise cache a GET (head).
    return fetch(`${this.apiUrl}${path}`, {
      ...init,
      cache: "no-store",
      headers: { authorization: `Bearer ${this.cfg.token}`, "x-api-version": API_VERSION, ...init.headers },
    });
  }

  async put(key: string, body: AsyncIterable<Uint8Array>, contentType: string): Promise<{ size: number }> {
    assertSafeKey(key);
    const q = `?${new URLSearchParams({ pathname: key })}`;
    const headers = { "x-vercel-blob-access": "private", "x-add-random-suffix": "0", "x-allow-overwrite": "1", "x-content-type": contentType };
    const parts = partsOf(body)[Symbol.asyncIterator]();
    const first = await parts.next();
    const firstPart = first.done ? Buffer.alloc(0) : first.value;
    const second = first.done ? first : await parts.next();
    if (second.done) {
      await ok(await this.api(`/${q}`, { method: "PUT", headers, body: firstPart }), "put");
      return { size: firstPart.length };
    }

    const mpu = (action: string, extra: Record<string, string>, body: BodyInit) =>
      this.api(`/mpu${q}`, { method: "POST", headers: { ...headers, "x-mpu-action": action, ...extra }, body });
    const created = (await (await ok(await mpu("create", {}, ""), "multipart create")).json()) as { uploadId: string; key: string };
    const ids = { "x-mpu-upload-id": created.uploadId, "x-mpu-key": encodeURI(created.key) };
    const done: Array<{ partNumber: number; etag: string }> = [];
    let size = 0;
    const send = async (part: Buffer<ArrayBuffer>) => {
      const partNumber = done.length + 1;
      const r = await ok(await mpu("upload", { ...ids, "x-mpu-part-number": String(partNumber) }, part), "multipart part");
      done.push({ partNumber, etag: ((await r.json()) as { etag: string }).etag });
      size += part.length;
    };
    await send(firstPart);
    await send(second.value);
    for (let p = await parts.next(); !p.done; p = await parts.next()) await send(p.value);
    await ok(await mpu("complete", { ...ids, "content-type": "application/json" }, JSON.stringify(done)), "multipart complete");
    return { size };
  }

  private async head(key: string): Promise<BlobHead | null> {
    assertSafeKey(key);
    const r = await this.api(`/?${new URLSearchParams({ url: key })}`, { method: "GET" });
    if (r.status === 404) return null;
    return (await (await ok(r, "head")).json()) as BlobHead;
  }

  async stat(key: string): Promise<StoredObject | null> {
    const h = await this.head(key);
    return h ? { size: h.size, contentType: h.contentType } : null;
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    const h = await this.head(key);
    if (!h) return null;
    const headers: Record<string, string> = { authorization: `Bearer ${this.cfg.token}` };
    if (range) headers.range = `bytes=${range.start}-${range.end}`;
    const r = await fetch(h.url, { headers, cache: "no-store" });
    if (r.status === 404) return null;
    await ok(r, "get");
    return Readable.fromWeb(r.body as WebReadableStream<Uint8Array>);
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    // Deleting a missing blob answers 200 as well.
    await ok(await this.api("/delete", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ urls: [key] }) }), "delete");
  }
}

/** The body cut into PART_SIZE buffers (the last one shorter); at least one, possibly empty. */
async function* partsOf(body: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer<ArrayBuffer>> {
  let held: Buffer<ArrayBuffer>[] = [];
  let n = 0;
  let any = false;
  for await (const chunk of body) {
    held.push(Buffer.from(chunk));
    n += chunk.length;
    while (n >= PART_SIZE) {
      const all = Buffer.concat(held);
      any = true;
      yield all.subarray(0, PART_SIZE);
      held = [all.subarray(PART_SIZE)];
      n -= PART_SIZE;
    }
  }
  if (n > 0 || !any) yield Buffer.concat(held);
}

/** The response when 2xx; otherwise an error naming the call and Blob's error code (never the token). */
async function ok(r: Response, what: string): Promise<Response> {
  if (r.ok) return r;
  const body = (await r.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  const detail = body?.error ? `${body.error.code ?? ""} ${body.error.message ?? ""}`.trim() : r.statusText;
  throw new Error(`Vercel Blob ${what} failed: HTTP ${r.status} ${detail}`);
}
