/**
 * With S3_* set, finished videos go to the S3-compatible bucket (a SigV4-checking fake on
 * loopback) and are streamed back from it, whole and by range; nothing lands in DATA_DIR/media.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeS3, type FakeS3 } from "./fakes/s3-server";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { apiClient } from "./video-config";

const creds = { accessKeyId: "AKIATESTVIDEO", secretAccessKey: "s3-secret/key+1", region: "eu-central-1" };
let s3: FakeS3;
let server: TestServer;

beforeAll(async () => {
  s3 = await startFakeS3(creds);
  server = await startTestServer({
    env: { S3_BUCKET: "gw-media", S3_ENDPOINT: s3.endpoint, S3_REGION: creds.region, S3_ACCESS_KEY_ID: creds.accessKeyId, S3_SECRET_ACCESS_KEY: creds.secretAccessKey },
  });
});
afterAll(async () => {
  await server?.dispose();
  await s3?.close();
});

it("stores the demo video in the bucket and serves it from there", async () => {
  const { key } = await createAccount(server, { usd: 1 });
  const api = apiClient(server, key);
  const sub = await api.submit({ model: "demo-video", prompt: "stored in a bucket", seconds: "10", size: "720x1280" });
  expect(sub.status).toBe(200);
  await api.until(sub.json.id, ["completed"], 30_000);
  const object = s3.objects.get(`/gw-media/videos/${sub.json.id}/0.mp4`);
  expect(object?.contentType).toBe("video/mp4");
  expect(object!.body.subarray(4, 8).toString("latin1")).toBe("ftyp");
  expect(s3.requests.every((r) => r.signatureOk)).toBe(true);

  const whole = await fetch(`${server.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}` } });
  expect(Buffer.from(await whole.arrayBuffer()).equals(object!.body)).toBe(true);
  const part = await fetch(`${server.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}`, range: "bytes=100-199" } });
  expect(part.status).toBe(206);
  expect(Buffer.from(await part.arrayBuffer()).equals(object!.body.subarray(100, 200))).toBe(true);
  expect(fs.existsSync(path.join(server.dataDir, "media"))).toBe(false);
});
