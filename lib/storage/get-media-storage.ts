/**
 * The process's media store: an S3-compatible bucket when S3_BUCKET is set, else a Vercel Blob
 * store when BLOB_READ_WRITE_TOKEN is, else a local folder (DATA_DIR/media). One instance per process, on globalThis (the custom server and
 * Next's bundle share it).
 */
import path from "node:path";
import { env } from "../env";
import { LocalStorage } from "./local-storage";
import type { MediaStorage } from "./media-storage";
import { processSingleton } from "../process-singleton";
import { S3Storage } from "./s3-storage";
import { BlobStorage } from "./blob-storage";

const slot = processSingleton("gateway.mediaStorage", () => ({ current: undefined as MediaStorage | undefined }));

export function getMediaStorage(): MediaStorage {
  const g = slot();
  if (!g.current) {
    const e = env();
    g.current = e.S3_BUCKET
      ? new S3Storage({
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION ?? "us-east-1",
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          presignTtlS: e.S3_PRESIGNED_DOWNLOAD_TTL_S,
        })
      : e.BLOB_READ_WRITE_TOKEN
        ? new BlobStorage({ token: e.BLOB_READ_WRITE_TOKEN, apiUrl: e.VERCEL_BLOB_API_URL })
        : new LocalStorage(path.join(e.DATA_DIR, "media"));
  }
  return g.current;
}

/** For tests that switch storage between cases. */
export function setMediaStorage(s: MediaStorage | undefined): void {
  slot().current = s;
}
