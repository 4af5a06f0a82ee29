import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeS3, type FakeS3 } from "../../tests/fakes/s3-server";
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
const creds = { accessKeyId: "AKIATEST", secretAccessKey: "secret/with+chars", region: "eu-west-1" };
beforeAll(async () => {
  s3 = await startFakeS3(creds);
});
afterAll(() => s3.close());

const cases: Array<[string, () => MediaStorage]> = [
  ["local", () => new LocalStorage(fs.mkdtempSync(path.join(os.tmpdir(), "media-")))],
  ["s3", () => new S3Storage({ bucket: "media", endpoint: s3.endpoint, ...creds })],
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
});

it("the fake S3 saw only correctly signed requests", () => {
  expect(s3.requests.length).toBeGreaterThan(0);
  expect(s3.requests.every((r) => r.signatureOk)).toBe(true);
});

it("refuses keys that could escape the folder", () => {
  for (const k of ["../x", "a/../../b", "/abs", "a//b", "", "a/./b"]) expect(() => assertSafeKey(k)).toThrow();
  expect(() => assertSafeKey("videos/task_1/0.mp4")).not.toThrow();
});
