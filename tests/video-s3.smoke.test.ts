/**
 * With S3_* set, finished videos go to the S3-compatible bucket (a SigV4-checking fake on
 * loopback, signing checked with the AWS SDK's own signer) and are streamed back from it, whole
 * and by range; nothing lands in DATA_DIR/media. With S3_PRESIGNED_DOWNLOAD_TTL_S the download
 * is a redirect to a presigned bucket URL instead.
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
let presigning: TestServer;

beforeAll(async () => {
  s3 = await startFakeS3(creds);
  const env = { S3_BUCKET: "gw-media", S3_ENDPOINT: s3.endpoint, S3_REGION: creds.region, S3_ACCESS_KEY_ID: creds.accessKeyId, S3_SECRET_ACCESS_KEY: creds.secretAccessKey };
  [server, presigning] = await Promise.all([startTestServer({ env }), startTestServer({ env: { ...env, S3_PRESIGNED_DOWNLOAD_TTL_S: "300" } })]);
});
afterAll(async () => {
  await server?.dispose();
  await presigning?.dispose();
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

it("redirects the download to a presigned bucket URL when S3_PRESIGNED_DOWNLOAD_TTL_S is set", async () => {
  const { key } = await createAccount(presigning, { usd: 1 });
  const api = apiClient(presigning, key);
  const sub = await api.submit({ model: "demo-video", prompt: "served by the bucket", seconds: "10", size: "720x1280" });
  expect(sub.status).toBe(200);
  await api.until(sub.json.id, ["completed"], 30_000);
  const object = s3.objects.get(`/gw-media/videos/${sub.json.id}/0.mp4`)!;
  const before = s3.requests.length;

  const res = await fetch(`${presigning.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}` }, redirect: "manual" });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!);
  expect(location.origin).toBe(s3.endpoint);
  expect(location.searchParams.get("X-Amz-Expires")).toBe("300");
  // The bucket answers it (Range too); the gateway streams nothing.
  const part = await fetch(location, { headers: { range: "bytes=4-11" } });
  expect(part.status).toBe(206);
  expect(await part.text()).toBe("ftypisom");
  const whole = await fetch(`${presigning.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}` } });
  expect(Buffer.from(await whole.arrayBuffer()).equals(object.body)).toBe(true);
  expect(s3.requests.slice(before).every((r) => r.signatureOk)).toBe(true);
  // Without the key there is still no redirect.
  const anon = await fetch(`${presigning.url}/v1/videos/${sub.json.id}/content`, { redirect: "manual" });
  expect(anon.status).toBe(401);
});
