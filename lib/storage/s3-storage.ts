/**
 * Media in an S3-compatible bucket (AWS, MinIO, R2, …) through the AWS SDK v3
 * (docs/decisions/0012-s3-through-the-aws-sdk.md). Path-style URLs when S3_ENDPOINT is set (what
 * MinIO and most self-hosted stores want), AWS's virtual-hosted URLs otherwise.
 *
 * Uploads stream: `@aws-sdk/lib-storage` sends a body of unknown length as a multipart upload,
 * holding at most `queueSize` parts of `partSize` bytes in memory (a short body becomes one
 * PutObject), with no temporary file. A failed upload is aborted, so the object that was there
 * stays whole.
 */
import { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { assertSafeKey, type ByteRange, type MediaStorage, type StoredObject } from "./media-storage";

export interface S3Config {
  bucket: string;
  /** e.g. http://127.0.0.1:9000; unset = AWS. */
  endpoint?: string;
  region: string;
  /** Both unset: the SDK's default credential chain (environment, IAM role, …). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Seconds a presigned download URL stays valid; 0 = media is streamed through the gateway. */
  presignTtlS?: number;
}

/** 8 MiB parts, two in flight: at most 16 MiB of one upload in memory (S3's minimum part is 5 MiB). */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

export class S3Storage implements MediaStorage {
  readonly kind = "s3" as const;
  readonly client: S3Client;

  constructor(private readonly cfg: S3Config) {
    this.client = new S3Client({
      region: cfg.region,
      endpoint: cfg.endpoint,
      forcePathStyle: Boolean(cfg.endpoint),
      credentials: cfg.accessKeyId ? { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey ?? "" } : undefined,
      // Checksums only where S3 requires them: S3-compatible stores (older MinIO, R2, Ceph)
      // refuse the streaming aws-chunked trailers the SDK adds by default since 3.729.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async put(key: string, body: AsyncIterable<Uint8Array>, contentType: string): Promise<{ size: number }> {
    assertSafeKey(key);
    let size = 0;
    async function* counted() {
      for await (const chunk of body) {
        size += chunk.length;
        yield chunk;
      }
    }
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.cfg.bucket, Key: key, Body: Readable.from(counted()), ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    await upload.done();
    return { size };
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertSafeKey(key);
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.cfg.bucket, Key: key }));
      return { size: r.ContentLength ?? 0, contentType: r.ContentType ?? "application/octet-stream" };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    assertSafeKey(key);
    try {
      const r = await this.client.send(
        new GetObjectCommand({ Bucket: this.cfg.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      // In Node the SDK's body is the HTTP response stream itself (never buffered).
      return r.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: key }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * A URL the bucket itself answers (with Range support) for `presignTtlS` seconds, or null when
   * presigned downloads are off. The caller has already authorized the download.
   */
  async downloadUrl(key: string, opts: { filename: string; contentType: string }): Promise<string | null> {
    if (!this.cfg.presignTtlS) return null;
    assertSafeKey(key);
    const cmd = new GetObjectCommand({
      Bucket: this.cfg.bucket,
      Key: key,
      ResponseContentType: opts.contentType,
      ResponseContentDisposition: `inline; filename="${opts.filename}"`,
    });
    return getSignedUrl(this.client, cmd, { expiresIn: this.cfg.presignTtlS });
  }
}

function isNotFound(err: unknown): boolean {
  if (err instanceof S3ServiceException) return err.$metadata.httpStatusCode === 404 || err.name === "NoSuchKey" || err.name === "NotFound";
  return false;
}
