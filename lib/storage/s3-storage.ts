/**
 * Media in an S3-compatible bucket (AWS, MinIO, R2, …) over plain HTTP with SigV4.
 * Path-style URLs when S3_ENDPOINT is set (what MinIO and most self-hosted stores want),
 * virtual-hosted AWS URLs otherwise. S3 needs a Content-Length on PUT, so an upload is first
 * spooled to a temporary file (hashing it on the way, so the payload is signed), then streamed.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { request } from "undici";
import { assertSafeKey, type ByteRange, type MediaStorage, type StoredObject } from "./media-storage";
import { EMPTY_SHA256, signRequest, uriEncode } from "./sigv4";

export interface S3Config {
  bucket: string;
  /** e.g. http://127.0.0.1:9000; unset = AWS. */
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export class S3Error extends Error {}

export class S3Storage implements MediaStorage {
  readonly kind = "s3" as const;
  constructor(private readonly cfg: S3Config) {}

  private url(key: string): URL {
    assertSafeKey(key);
    const k = uriEncode(key, true);
    if (this.cfg.endpoint) return new URL(`${this.cfg.endpoint.replace(/\/+$/, "")}/${this.cfg.bucket}/${k}`);
    return new URL(`https://${this.cfg.bucket}.s3.${this.cfg.region}.amazonaws.com/${k}`);
  }

  private sign(method: string, url: URL, headers: Record<string, string>, payloadSha256 = EMPTY_SHA256) {
    return signRequest({ method, url, headers, payloadSha256, creds: this.cfg });
  }

  async put(key: string, body: AsyncIterable<Uint8Array>, contentType: string): Promise<{ size: number }> {
    const url = this.url(key);
    const tmp = path.join(os.tmpdir(), `gw-s3-${randomBytes(8).toString("hex")}`);
    const hash = createHash("sha256");
    let size = 0;
    try {
      await pipeline(
        Readable.from(body),
        new Transform({
          transform(chunk: Buffer, _enc, cb) {
            hash.update(chunk);
            size += chunk.length;
            cb(null, chunk);
          },
        }),
        fs.createWriteStream(tmp, { mode: 0o600 }),
      );
      const headers = this.sign("PUT", url, { "content-type": contentType, "content-length": String(size) }, hash.digest("hex"));
      const res = await request(url, { method: "PUT", headers, body: fs.createReadStream(tmp) });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new S3Error(`S3 PUT ${key} failed: ${res.statusCode} ${text.slice(0, 200)}`);
    } finally {
      await fsp.rm(tmp, { force: true });
    }
    return { size };
  }

  async stat(key: string): Promise<StoredObject | null> {
    const url = this.url(key);
    const res = await request(url, { method: "HEAD", headers: this.sign("HEAD", url, {}) });
    await res.body.dump();
    if (res.statusCode === 404) return null;
    if (res.statusCode !== 200) throw new S3Error(`S3 HEAD ${key} failed: ${res.statusCode}`);
    return { size: Number(res.headers["content-length"] ?? 0), contentType: String(res.headers["content-type"] ?? "application/octet-stream") };
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    const url = this.url(key);
    const extra: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end}` } : {};
    const res = await request(url, { method: "GET", headers: this.sign("GET", url, extra) });
    if (res.statusCode === 404) {
      await res.body.dump();
      return null;
    }
    if (res.statusCode !== 200 && res.statusCode !== 206) {
      await res.body.dump();
      throw new S3Error(`S3 GET ${key} failed: ${res.statusCode}`);
    }
    return res.body;
  }

  async delete(key: string): Promise<void> {
    const url = this.url(key);
    const res = await request(url, { method: "DELETE", headers: this.sign("DELETE", url, {}) });
    await res.body.dump();
    if (res.statusCode !== 204 && res.statusCode !== 200 && res.statusCode !== 404) {
      throw new S3Error(`S3 DELETE ${key} failed: ${res.statusCode}`);
    }
  }
}
