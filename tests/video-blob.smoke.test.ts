/**
 * With only BLOB_READ_WRITE_TOKEN set (as on Vercel with a Blob store connected), finished
 * videos go to the Vercel Blob store (a token-checking fake on loopback) as private blobs and
 * are streamed back through the gateway, whole and by range; nothing lands in DATA_DIR/media.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeBlob, type FakeBlob } from "./fakes/blob-server";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";
import { apiClient } from "./video-config";

let blob: FakeBlob;
let server: TestServer;

beforeAll(async () => {
  blob = await startFakeBlob();
  server = await startTestServer({ env: { BLOB_READ_WRITE_TOKEN: blob.token, VERCEL_BLOB_API_URL: blob.apiUrl } });
});
afterAll(async () => {
  await server?.dispose();
  await blob?.close();
});

it("stores the demo video as a private blob and streams it back through the gateway", async () => {
  const { key } = await createAccount(server, { usd: 1 });
  const api = apiClient(server, key);
  const sub = await api.submit({ model: "demo-video", prompt: "stored in a blob", seconds: "10", size: "720x1280" });
  expect(sub.status).toBe(200);
  await api.until(sub.json.id, ["completed"], 30_000);
  const stored = blob.blobs.get(`videos/${sub.json.id}/0.mp4`);
  expect(stored).toMatchObject({ contentType: "video/mp4", access: "private" });
  expect(blob.requests.every((r) => r.authorized)).toBe(true);

  const whole = await fetch(`${server.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}` }, redirect: "manual" });
  expect(whole.status).toBe(200);
  expect(Buffer.from(await whole.arrayBuffer()).equals(stored!.body)).toBe(true);
  const part = await fetch(`${server.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}`, range: "bytes=100-199" } });
  expect(part.status).toBe(206);
  expect(Buffer.from(await part.arrayBuffer()).equals(stored!.body.subarray(100, 200))).toBe(true);
  expect(fs.existsSync(path.join(server.dataDir, "media"))).toBe(false);
});
