/**
 * Cloud upstreams signed with the platform's own identity, no secret in the config (issue 34):
 * Azure managed identity (the instance metadata service, a user-assigned identity's client id,
 * App Service's IDENTITY_ENDPOINT/IDENTITY_HEADER) and Google's (the metadata server, and
 * workload identity federation: an external-account file whose platform token is exchanged at
 * STS and impersonates a service account). Tokens are cached (one fetch for many calls) and
 * neither they nor the identity header reach the server's log.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AZURE_DEPLOYMENT, startFakeAzureOpenAI } from "./fakes/azure-openai-upstream";
import {
  APP_SERVICE_IDENTITY_HEADER,
  AZURE_MI_TOKEN,
  AZURE_USER_ASSIGNED_CLIENT_ID,
  externalAccountFile,
  OIDC_SUBJECT_TOKEN,
  startFakeIdentity,
  type FakeIdentity,
} from "./fakes/cloud-identity";
import { startFakeVertex, VERTEX_PROJECT, VERTEX_REGION, VERTEX_TOKEN } from "./fakes/vertex-upstream";
import type { FakeTextUpstream } from "./fakes/text-fake-core";
import { createAccount } from "./support/accounts";
import { startTestServer, type TestServer } from "./support/server";

const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };

let identity: FakeIdentity;
let azure: FakeTextUpstream;
let vertex: FakeTextUpstream;
let server: TestServer;
let key: string;

beforeAll(async () => {
  identity = await startFakeIdentity();
  azure = await startFakeAzureOpenAI({ auth: "bearer", token: AZURE_MI_TOKEN });
  vertex = await startFakeVertex();
  const imds = `${identity.baseUrl}/metadata/identity/oauth2/token`;
  const vx = (id: string) => ({ id, protocol: "vertex", baseUrl: vertex.baseUrl, project: VERTEX_PROJECT, region: VERTEX_REGION, timeoutMs: 5000 });
  server = await startTestServer({
    env: { IDENTITY_ENDPOINT: `${identity.baseUrl}/msi/token`, IDENTITY_HEADER: APP_SERVICE_IDENTITY_HEADER, GCE_METADATA_HOST: identity.host },
    config: {
      upstreams: [
        { id: "az-imds", protocol: "azure-openai", baseUrl: azure.baseUrl, tokenUrl: imds, timeoutMs: 5000 },
        { id: "az-imds-user", protocol: "azure-openai", baseUrl: azure.baseUrl, tokenUrl: imds, clientId: AZURE_USER_ASSIGNED_CLIENT_ID, timeoutMs: 5000 },
        { id: "az-appservice", protocol: "azure-openai", baseUrl: azure.baseUrl, timeoutMs: 5000 },
        vx("vx-metadata"),
        { ...vx("vx-federated"), serviceAccount: externalAccountFile(identity) },
      ],
      models: [
        { id: "az-imds-chat", kind: "text", upstream: "az-imds", upstreamModel: AZURE_DEPLOYMENT, price: PRICE },
        { id: "az-user-chat", kind: "text", upstream: "az-imds-user", upstreamModel: AZURE_DEPLOYMENT, price: PRICE },
        { id: "az-appservice-chat", kind: "text", upstream: "az-appservice", upstreamModel: AZURE_DEPLOYMENT, price: PRICE },
        { id: "gemini-metadata", kind: "text", upstream: "vx-metadata", upstreamModel: "gemini-2.5-pro", price: PRICE },
        { id: "gemini-federated", kind: "text", upstream: "vx-federated", upstreamModel: "gemini-2.5-pro", price: PRICE },
      ],
    },
  });
  ({ key } = await createAccount(server, { usd: 5 }));
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all([identity?.close(), azure?.close(), vertex?.close()]);
});
beforeEach(() => {
  identity.requests.length = 0;
  identity.noFlavor = false;
});

async function chat(model: string) {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ model, max_tokens: 50, messages: [{ role: "user", content: "Hi" }] }),
  });
  return { res, text: await res.text() };
}

const tokenCalls = (path: string) => identity.requests.filter((r) => r.path.startsWith(path));

describe("Azure managed identity", () => {
  it("system-assigned, through the instance metadata service: Metadata: true, the Azure OpenAI resource; one fetch for several calls", async () => {
    for (let i = 0; i < 3; i++) {
      const { res, text } = await chat("az-imds-chat");
      expect(res.status, text).toBe(200);
    }
    const calls = tokenCalls("/metadata/identity/oauth2/token");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.metadata).toBe("true");
    expect(calls[0]!.path).toMatch(/api-version=2018-02-01&resource=https%3A%2F%2Fcognitiveservices\.azure\.com$/);
  });

  it("user-assigned: its client id goes with the token request", async () => {
    const { res, text } = await chat("az-user-chat");
    expect(res.status, text).toBe(200);
    expect(tokenCalls("/metadata/identity/oauth2/token")[0]!.path).toContain(`client_id=${AZURE_USER_ASSIGNED_CLIENT_ID}`);
  });

  it("App Service: IDENTITY_ENDPOINT with the IDENTITY_HEADER, and neither the header nor the token in the log", async () => {
    const { res, text } = await chat("az-appservice-chat");
    expect(res.status, text).toBe(200);
    const calls = tokenCalls("/msi/token");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers["x-identity-header"]).toBe(APP_SERVICE_IDENTITY_HEADER);
    expect(calls[0]!.path).toContain("api-version=2019-08-01");
    const logs = server.logs();
    expect(logs).not.toContain(APP_SERVICE_IDENTITY_HEADER);
    expect(logs).not.toContain(AZURE_MI_TOKEN);
  });
});

describe("Google identities for Vertex AI", () => {
  it("no key file: the metadata server's token (Metadata-Flavor: Google), cached", async () => {
    for (let i = 0; i < 2; i++) {
      const { res, text } = await chat("gemini-metadata");
      expect(res.status, text).toBe(200);
    }
    const calls = tokenCalls("/computeMetadata/v1/instance/service-accounts/default/token");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers["metadata-flavor"]).toBe("Google");
    expect(vertex.generationRequests().at(-1)!.headers.authorization).toBe(`Bearer ${VERTEX_TOKEN}`);
  });

  it("workload identity federation: the platform's token exchanged at STS, then the service account impersonated", async () => {
    const { res, text } = await chat("gemini-federated");
    expect(res.status, text).toBe(200);
    expect(tokenCalls("/oidc-token")).toHaveLength(1);
    const sts = new URLSearchParams(tokenCalls("/v1/token")[0]!.body);
    expect(sts.get("subject_token")).toBe(OIDC_SUBJECT_TOKEN);
    expect(tokenCalls("/v1/projects/-/serviceAccounts/")).toHaveLength(1);
    expect(server.logs()).not.toContain(OIDC_SUBJECT_TOKEN);
  });
});
