/**
 * Admin → Upstreams for the settings and secrets beyond one key (issue 34): an Azure upstream
 * with Entra ID keeps its client secret encrypted, never lists or audits it, and "Test
 * connection" gets a token before reading the model list; a setting the protocol does not have
 * is refused naming it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { auditLog, upstreams } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { ENTRA_CLIENT, ENTRA_FAKE_TOKEN, startFakeEntra, type FakeEntra } from "../../tests/fakes/azure-openai-upstream";
import { createUpstream, createUpstreamSchema, listUpstreams, testUpstream, updateUpstream, updateUpstreamSchema } from "./admin-catalog";

let db: DB;
let close: () => Promise<void>;
let entra: FakeEntra;
let azure: http.Server;
let azureUrl = "";
const actor = { id: "usr_admin", email: "admin@example.com" };

beforeAll(async () => {
  ({ db, close } = await createTestDb());
  entra = await startFakeEntra();
  azure = http.createServer((req, res) => {
    const ok = req.url === "/openai/v1/models" && req.headers.authorization === `Bearer ${ENTRA_FAKE_TOKEN}`;
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [] }));
  });
  await new Promise<void>((r) => azure.listen(0, "127.0.0.1", r));
  azureUrl = `http://127.0.0.1:${(azure.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => azure.close(r));
  await entra.close();
  await close();
});

describe("upstream settings and credentials", () => {
  it("Azure with Entra ID: secret encrypted, never listed or audited; Test connection fetches a token first", async () => {
    await createUpstream(db, actor, createUpstreamSchema.parse({ id: "az", protocol: "azure-openai", baseUrl: azureUrl, tokenUrl: entra.tokenUrl, ...ENTRA_CLIENT }));
    expect(await testUpstream(db, "az")).toMatchObject({ ok: true, status: 200 });
    expect(entra.requests.at(-1)).toMatchObject({ client_id: ENTRA_CLIENT.clientId, client_secret: ENTRA_CLIENT.clientSecret });

    await updateUpstream(db, actor, "az", updateUpstreamSchema.parse({ clientSecret: "a-wrong-secret" }));
    const bad = await testUpstream(db, "az");
    expect(bad).toMatchObject({ ok: false });
    expect(bad.message).toMatch(/Entra ID token/);
    expect(bad.message).not.toMatch(/a-wrong-secret/);

    const listed = (await listUpstreams(db)).find((u) => u.id === "az")!;
    expect(listed).toMatchObject({ hasApiKey: false, hasCredentials: true, settings: { clientId: ENTRA_CLIENT.clientId, tenantId: ENTRA_CLIENT.tenantId, tokenUrl: entra.tokenUrl } });
    expect(JSON.stringify(listed)).not.toMatch(/entra-fake-client-secret|a-wrong-secret/);
    const [row] = await db.select().from(upstreams).where(eq(upstreams.id, "az"));
    expect(row!.credentialsEncrypted).toMatch(/^v1\./);
    const audits = await db.select().from(auditLog).where(eq(auditLog.targetId, "az"));
    expect(JSON.stringify(audits)).not.toMatch(/entra-fake-client-secret|a-wrong-secret/);
    expect(audits.find((a) => a.action === "upstream.update")!.details).toEqual({ before: { credentials: "set" }, after: { credentials: "replaced" } });
  });

  it("a setting the protocol does not have is refused naming it; an openai upstream takes a vendor", async () => {
    await expect(updateUpstream(db, actor, "az", updateUpstreamSchema.parse({ vendor: "xai" }))).rejects.toMatchObject({ opts: { field: "vendor" } });
    await createUpstream(db, actor, createUpstreamSchema.parse({ id: "x", protocol: "openai", baseUrl: "https://api.x.ai/v1", vendor: "xai" }));
    await expect(createUpstream(db, actor, createUpstreamSchema.parse({ id: "an", protocol: "anthropic", baseUrl: "https://api.anthropic.com", apiVersion: "v1" }))).rejects.toMatchObject({ opts: { field: "apiVersion" } });
    await updateUpstream(db, actor, "x", updateUpstreamSchema.parse({ vendor: "groq" }));
    expect((await listUpstreams(db)).find((u) => u.id === "x")!.settings).toEqual({ vendor: "groq" });
  });
});

describe("Bedrock in Admin → Upstreams", () => {
  it("keeps the AWS keys encrypted, changes one without losing the others, and Test connection signs with them", async () => {
    const { startFakeBedrock, BEDROCK_KEYS, BEDROCK_REGION } = await import("../../tests/fakes/bedrock-upstream");
    const fake = await startFakeBedrock();
    try {
      await createUpstream(db, actor, createUpstreamSchema.parse({ id: "br", protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, accessKeyId: BEDROCK_KEYS.accessKeyId, secretAccessKey: "wrong" }));
      expect(await testUpstream(db, "br")).toMatchObject({ ok: false, status: 403 });
      await updateUpstream(db, actor, "br", updateUpstreamSchema.parse({ secretAccessKey: BEDROCK_KEYS.secretAccessKey }));
      // The fake answers 404 for the model list, but only once the signature is right.
      expect(await testUpstream(db, "br")).toMatchObject({ status: 404 });
      expect(fake.requests.at(-1)).toMatchObject({ path: "/foundation-models?byOutputModality=TEXT", signatureOk: true });
      const listed = (await listUpstreams(db)).find((u) => u.id === "br")!;
      expect(listed).toMatchObject({ hasCredentials: true, settings: { region: BEDROCK_REGION } });
      expect(JSON.stringify(listed)).not.toContain(BEDROCK_KEYS.secretAccessKey);
    } finally {
      await fake.close();
    }
  });
});

describe("Vertex in Admin → Upstreams", () => {
  it("keeps the service account key encrypted, refuses a file that is not one, and Test connection trades it for a token first", async () => {
    const { serviceAccountKey, startFakeGoogleOAuth, STRANGER_KEY, VERTEX_PROJECT } = await import("../../tests/fakes/vertex-upstream");
    const oauth = await startFakeGoogleOAuth();
    try {
      expect(() => updateUpstreamSchema.parse({ serviceAccount: '{"not":"a key"}' })).toThrow(/service account/);
      const stranger = JSON.stringify(serviceAccountKey(oauth.tokenUrl, STRANGER_KEY));
      await createUpstream(db, actor, createUpstreamSchema.parse({ id: "vx", protocol: "vertex", project: VERTEX_PROJECT, region: "us-east5", serviceAccount: stranger }));
      const bad = await testUpstream(db, "vx");
      expect(bad).toMatchObject({ ok: false, status: 0 });
      expect(bad.message).toMatch(/service-account token/);
      expect(oauth.requests.at(-1)!.accepted).toBe(false);
      const listed = (await listUpstreams(db)).find((u) => u.id === "vx")!;
      expect(listed).toMatchObject({ hasCredentials: true, settings: { project: VERTEX_PROJECT, region: "us-east5" } });
      expect(JSON.stringify(listed)).not.toMatch(/PRIVATE KEY/);
      const audits = await db.select().from(auditLog).where(eq(auditLog.targetId, "vx"));
      expect(JSON.stringify(audits)).not.toMatch(/PRIVATE KEY/);
    } finally {
      await oauth.close();
    }
  });
});
