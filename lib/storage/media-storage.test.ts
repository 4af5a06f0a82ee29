import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeBlob, type FakeBlob } from "../../tests/fakes/blob-server";
import { startFakeS3, type FakeS3 } from "../../tests/fakes/s3-server";
import { resetEnvCache } from "../env";
import { BlobStorage } from "./blob-storage";
import { getMediaStorage, setMediaStorage } from "./get-media-storage";
import { LocalStorage } from "./local-storage";
import { assertSafeKey, type MediaStorage } from "./media-storage";
import { S3Storage } from "./s3-storage";

const clip = fs.readFileSync(path.resolve("assets/demo-video/1280x720.mp4"));

async function collect(r: Readable | null): Promise<Buffer> {
  if (!r) throw new Error("missing");
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

/** Chunks, so the storage sees a stream and not one buffer. */
async function* chunked(buf: Buffer, size = 4096) {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

let s3: FakeS3;
let blob: FakeBlob;
/** s3rver: an S3 implementation on loopback (its own XML protocol code, multipart included). */
let s3rver: S3rver;
let s3rverEndpoint: string;
const creds = { accessKeyId: "AKIATEST", secretAccessKey: "secret/with+chars", region: "eu-west-1" };
beforeAll(async () => {
  s3 = await startFakeS3(creds);
  blob = await startFakeBlob();
  s3rver = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: fs.mkdtempSync(path.join(os.tmpdir(), "s3rver-")), configureBuckets: [{ name: "media", configs: [] }] });
  const { port } = await s3rver.run();
  s3rverEndpoint = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await s3.close();
  await blob.close();
  await s3rver.close();
});

const cases: Array<[string, () => MediaStorage]> = [
  ["local", () => new LocalStorage(fs.mkdtempSync(path.join(os.tmpdir(), "media-")))],
  ["s3 (signature-checking fake)", () => new S3Storage({ bucket: "media", endpoint: s3.endpoint, ...creds })],
  ["vercel blob (fake)", () => new BlobStorage({ token: blob.token, apiUrl: blob.apiUrl })],
  ["s3 (s3rver)", () => new S3Storage({ bucket: "media", endpoint: s3rverEndpoint, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" })],
];

describe.each(cases)("%s storage", (_name, make) => {
  it("stores a stream, stats, reads whole and by range, deletes", async () => {
    const st = make();
    const key = "videos/task_abc/0.mp4";
    expect(await st.put(key, chunked(clip), "video/mp4")).toEqual({ size: clip.length });
    expect(await st.stat(key)).toEqual({ size: clip.length, contentType: "video/mp4" });
    expect((await collect(await st.read(key))).equals(clip)).toBe(true);
    const part = await collect(await st.read(key, { start: 4, end: 11 }));
    expect(part.toString("latin1")).toBe("ftypisom");
    await st.delete(key);
    expect(await st.stat(key)).toBeNull();
    expect(await st.read(key)).toBeNull();
    await st.delete(key); // idempotent
  });

  it("replaces an object and leaves no partial one behind on a failed upload", async () => {
    const st = make();
    const key = "videos/task_def/0.mp4";
    await st.put(key, chunked(Buffer.from("first")), "video/mp4");
    async function* broken() {
      yield Buffer.from("partial");
      throw new Error("upstream dropped");
    }
    await expect(st.put(key, broken(), "video/mp4")).rejects.toThrow("upstream dropped");
    expect((await collect(await st.read(key))).toString()).toBe("first");
  });

  it("streams a body larger than one part (a multipart upload for S3 and Blob) and reads ranges across parts", async () => {
    const st = make();
    const key = "videos/task_big/0.mp4";
    const big = Buffer.alloc(19 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE(i, i);
    expect(await st.put(key, chunked(big, 64 * 1024), "video/mp4")).toEqual({ size: big.length });
    expect((await st.stat(key))?.size).toBe(big.length);
    const edge = 8 * 1024 * 1024 - 10; // spans the first part boundary
    expect((await collect(await st.read(key, { start: edge, end: edge + 19 }))).equals(big.subarray(edge, edge + 20))).toBe(true);
    expect((await collect(await st.read(key))).equals(big)).toBe(true);
    await st.delete(key);
  }, 60_000);
});

describe("s3 storage (fake)", () => {
  it("sent the 19 MiB body as a multipart upload, never whole", () => {
    const parts = s3.requests.filter((r) => r.method === "PUT" && r.query.includes("partNumber="));
    expect(parts.length).toBe(3);
    expect(s3.requests.some((r) => r.method === "POST" && r.query.includes("uploads"))).toBe(true);
  });

  it("refuses a client with the wrong secret (the fake really checks signatures)", async () => {
    const wrong = new S3Storage({ bucket: "media", endpoint: s3.endpoint, ...creds, secretAccessKey: "not-the-secret" });
    await expect(wrong.stat("videos/x/0.mp4")).rejects.toThrow();
    s3.requests.pop();
  });

  it("presigns a download the bucket answers, whole and by range, and only when enabled", async () => {
    const off = new S3Storage({ bucket: "media", endpoint: s3.endpoint, ...creds });
    expect(await off.downloadUrl("videos/p/0.mp4", { filename: "p.mp4", contentType: "video/mp4" })).toBeNull();
    const st = new S3Storage({ bucket: "media", endpoint: s3.endpoint, ...creds, presignTtlS: 120 });
    await st.put("videos/p/0.mp4", chunked(clip), "video/mp4");
    const url = await st.downloadUrl("videos/p/0.mp4", { filename: "task_p.mp4", contentType: "video/mp4" });
    expect(url).toMatch(/X-Amz-Expires=120/);
    const whole = await fetch(url!);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-disposition")).toBe('inline; filename="task_p.mp4"');
    expect(Buffer.from(await whole.arrayBuffer()).equals(clip)).toBe(true);
    const part = await fetch(url!, { headers: { range: "bytes=4-11" } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe("ftypisom");
    const tampered = await fetch(url!.replace("videos/p/0.mp4", "videos/q/0.mp4"));
    expect(tampered.status).toBe(403);
    s3.requests.pop();
  });
});

describe("vercel blob storage (fake)", () => {
  it("kept every blob private, sent the 19 MiB body as three parts and a complete, never whole", () => {
    expect([...blob.blobs.values()].every((b) => b.access === "private")).toBe(true);
    const mpu = blob.requests.filter((r) => r.path === "/mpu");
    expect(mpu.map((r) => r.action)).toEqual(["create", "upload", "upload", "upload", "complete"]);
    expect(Math.max(...blob.requests.map((r) => r.bytes))).toBe(8 * 1024 * 1024);
    expect(blob.requests.every((r) => r.authorized)).toBe(true);
  });

  it("never completes a failed multipart upload, and refuses a client with the wrong token", async () => {
    const st = new BlobStorage({ token: blob.token, apiUrl: blob.apiUrl });
    const before = blob.requests.length;
    async function* broken() {
      yield Buffer.alloc(17 * 1024 * 1024); // two whole parts are sent...
      throw new Error("upstream dropped");
    }
    await expect(st.put("videos/task_x/0.mp4", broken(), "video/mp4")).rejects.toThrow("upstream dropped");
    // ...but the upload is never completed, so no blob appears.
    expect(blob.blobs.has("videos/task_x/0.mp4")).toBe(false);
    expect(blob.requests.slice(before).map((r) => r.action)).toEqual(["create", "upload", "upload"]);
    const wrong = new BlobStorage({ token: "vercel_blob_rw_teststore_wrong", apiUrl: blob.apiUrl });
    await expect(wrong.stat("videos/x/0.mp4")).rejects.toThrow(/HTTP 403 forbidden/);
    await expect(wrong.stat("videos/x/0.mp4")).rejects.not.toThrow(/wrong/);
  });

  it("streams downloads through the gateway (no time-limited URL for a private blob)", () => {
    expect("downloadUrl" in new BlobStorage({ token: blob.token, apiUrl: blob.apiUrl })).toBe(false);
  });
});

it("the fake S3 saw only correctly signed requests", () => {
  // (the two deliberate refusals above were taken off the record)
  expect(s3.requests.length).toBeGreaterThan(0);
  expect(s3.requests.every((r) => r.signatureOk)).toBe(true);
});

it("picks S3 when S3_BUCKET is set, else Vercel Blob when BLOB_READ_WRITE_TOKEN is, else the local folder", () => {
  const saved = { S3_BUCKET: process.env.S3_BUCKET, BLOB_READ_WRITE_TOKEN: process.env.BLOB_READ_WRITE_TOKEN };
  const pick = (vars: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(vars)) v === undefined ? delete process.env[k] : (process.env[k] = v);
    resetEnvCache();
    setMediaStorage(undefined);
    return getMediaStorage().kind;
  };
  try {
    expect(pick({ S3_BUCKET: undefined, BLOB_READ_WRITE_TOKEN: undefined })).toBe("local");
    expect(pick({ BLOB_READ_WRITE_TOKEN: "vercel_blob_rw_x_y" })).toBe("blob");
    expect(pick({ S3_BUCKET: "media" })).toBe("s3");
  } finally {
    pick(saved);
    setMediaStorage(undefined);
  }
});

it("refuses keys that could escape the folder", () => {
  for (const k of ["../x", "a/../../b", "/abs", "a//b", "", "a/./b"]) expect(() => assertSafeKey(k)).toThrow();
  expect(() => assertSafeKey("videos/task_1/0.mp4")).not.toThrow();
});
