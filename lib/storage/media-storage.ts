/**
 * Where finished media lives: the contract of the stores (local-storage.ts, s3-storage.ts,
 * blob-storage.ts). All stream in and out; nothing holds a whole video in memory. get-media-storage.ts picks one.
 */
import type { Readable } from "node:stream";

export interface StoredObject {
  size: number;
  contentType: string;
}

/** Inclusive byte offsets, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface MediaStorage {
  readonly kind: "local" | "s3" | "blob";
  /** Stores the stream under `key`, replacing what was there; the object appears whole or not at all. */
  put(key: string, body: AsyncIterable<Uint8Array>, contentType: string): Promise<{ size: number }>;
  stat(key: string): Promise<StoredObject | null>;
  /** The whole object, or the given range of it; null when it does not exist. */
  read(key: string, range?: ByteRange): Promise<Readable | null>;
  /** Idempotent: deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** A time-limited URL the store answers itself (S3 presigned GET), or null to stream through us. */
  downloadUrl?(key: string, opts: { filename: string; contentType: string }): Promise<string | null>;
}

/** Keys are ours (`videos/<task id>/<n>.mp4`), but refuse anything that could escape a folder. */
export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._/-]*$/.test(key) || key.split("/").some((p) => p === ".." || p === "." || p === "")) {
    throw new Error(`unsafe storage key: ${key}`);
  }
}

export function contentTypeFor(key: string): string {
  if (key.endsWith(".mp4")) return "video/mp4";
  if (key.endsWith(".png")) return "image/png";
  if (key.endsWith(".jpg") || key.endsWith(".jpeg")) return "image/jpeg";
  if (key.endsWith(".webp")) return "image/webp";
  return "application/octet-stream";
}
