/**
 * Fake cloud identity endpoints, each checking what the real one checks:
 * - Azure's instance metadata service (GET /metadata/identity/oauth2/token: `Metadata: true`,
 *   api-version 2018-02-01, the resource; refuses a forwarded request, as IMDS does);
 * - Azure App Service's identity endpoint (GET /msi/token: `X-IDENTITY-HEADER`, api-version 2019-08-01);
 * - Google's metadata server (GET /computeMetadata/v1/instance/service-accounts/default/token:
 *   `Metadata-Flavor: Google` asked and answered);
 * - workload identity federation: a platform's OIDC token URL (GET /oidc-token), Google's STS
 *   (POST /v1/token, RFC 8693 token exchange) and IAM Credentials' generateAccessToken.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { VERTEX_TOKEN } from "./vertex-upstream";

export const AZURE_MI_TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.fake-managed-identity-token";
export const AZURE_USER_ASSIGNED_CLIENT_ID = "99999999-8888-7777-6666-555555555555";
export const APP_SERVICE_IDENTITY_HEADER = "app-service-identity-header-secret-0123";
export const OIDC_SUBJECT_TOKEN = "eyJhbGciOiJSUzI1NiJ9.fake-platform-oidc-subject-token";
export const WIF_AUDIENCE = "//iam.googleapis.com/projects/123456/locations/global/workloadIdentityPools/gw-pool/providers/gw-oidc";
export const WIF_SERVICE_ACCOUNT = "vertex-caller@acme-genai-prod.iam.gserviceaccount.com";
const STS_TOKEN = "ya29.fake-federated-sts-token";

export interface FakeIdentity {
  baseUrl: string;
  /** host:port, for GCE_METADATA_HOST. */
  host: string;
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: string }>;
  /** The metadata server forgets its Metadata-Flavor answer header (something else answering). */
  noFlavor: boolean;
  close(): Promise<void>;
}

/** An external-account file pointing at this fake (credential source: a URL with a JSON answer). */
export function externalAccountFile(fake: FakeIdentity): Record<string, unknown> {
  return {
    type: "external_account",
    audience: WIF_AUDIENCE,
    subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    token_url: `${fake.baseUrl}/v1/token`,
    service_account_impersonation_url: `${fake.baseUrl}/v1/projects/-/serviceAccounts/${WIF_SERVICE_ACCOUNT}:generateAccessToken`,
    credential_source: { url: `${fake.baseUrl}/oidc-token`, headers: { "x-platform-token-request": "1" }, format: { type: "json", subject_token_field_name: "id_token" } },
  };
}

export async function startFakeIdentity(): Promise<FakeIdentity> {
  const fake: FakeIdentity = { baseUrl: "", host: "", requests: [], noFlavor: false, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const url = new URL(req.url!, "http://x");
      fake.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      const send = (status: number, v: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(v));
      const q = url.searchParams;
      const now = Math.floor(Date.now() / 1000);
      if (req.method === "GET" && url.pathname === "/metadata/identity/oauth2/token") {
        if (req.headers.metadata !== "true" || req.headers["x-forwarded-for"]) return send(400, { error: "invalid_request", error_description: "Required metadata header not specified" });
        if (q.get("api-version") !== "2018-02-01" || q.get("resource") !== "https://cognitiveservices.azure.com") return send(400, { error: "invalid_request", error_description: "Invalid api-version or resource" });
        const clientId = q.get("client_id");
        if (clientId !== null && clientId !== AZURE_USER_ASSIGNED_CLIENT_ID) return send(400, { error: "invalid_request", error_description: "Identity not found" });
        return send(200, { access_token: AZURE_MI_TOKEN, client_id: clientId ?? "system-assigned", expires_in: "86399", expires_on: String(now + 86399), ext_expires_in: "86399", not_before: String(now), resource: "https://cognitiveservices.azure.com", token_type: "Bearer" });
      }
      if (req.method === "GET" && url.pathname === "/msi/token") {
        if (req.headers["x-identity-header"] !== APP_SERVICE_IDENTITY_HEADER) return send(401, { statusCode: 401, message: "Unauthorized" });
        if (q.get("api-version") !== "2019-08-01" || q.get("resource") !== "https://cognitiveservices.azure.com") return send(400, { statusCode: 400, message: "Invalid api-version or resource" });
        return send(200, { access_token: AZURE_MI_TOKEN, expires_on: String(now + 86399), resource: "https://cognitiveservices.azure.com", token_type: "Bearer", client_id: "system-assigned" });
      }
      if (req.method === "GET" && url.pathname === "/computeMetadata/v1/instance/service-accounts/default/token") {
        if (req.headers["metadata-flavor"] !== "Google") return res.writeHead(403, { "content-type": "text/html" }).end("Missing Metadata-Flavor:Google header.");
        return send(200, { access_token: VERTEX_TOKEN, expires_in: 3599, token_type: "Bearer" }, fake.noFlavor ? {} : { "metadata-flavor": "Google" });
      }
      if (req.method === "GET" && url.pathname === "/oidc-token") {
        if (req.headers["x-platform-token-request"] !== "1") return send(403, { error: "forbidden" });
        return send(200, { id_token: OIDC_SUBJECT_TOKEN });
      }
      if (req.method === "POST" && url.pathname === "/v1/token") {
        const f = new URLSearchParams(body);
        const ok =
          f.get("grant_type") === "urn:ietf:params:oauth:grant-type:token-exchange" &&
          f.get("audience") === WIF_AUDIENCE &&
          f.get("subject_token") === OIDC_SUBJECT_TOKEN &&
          f.get("subject_token_type") === "urn:ietf:params:oauth:token-type:jwt" &&
          f.get("requested_token_type") === "urn:ietf:params:oauth:token-type:access_token" &&
          f.get("scope") === "https://www.googleapis.com/auth/cloud-platform";
        if (!ok) return send(400, { error: "invalid_grant", error_description: "The subject token or the exchange parameters are invalid." });
        return send(200, { access_token: STS_TOKEN, issued_token_type: "urn:ietf:params:oauth:token-type:access_token", token_type: "Bearer", expires_in: 3600 });
      }
      if (req.method === "POST" && url.pathname === `/v1/projects/-/serviceAccounts/${WIF_SERVICE_ACCOUNT}:generateAccessToken`) {
        if (req.headers.authorization !== `Bearer ${STS_TOKEN}`) return send(401, { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } });
        const b = JSON.parse(body || "{}") as { scope?: string[] };
        if (!b.scope?.includes("https://www.googleapis.com/auth/cloud-platform")) return send(400, { error: { code: 400, message: "scope is required", status: "INVALID_ARGUMENT" } });
        return send(200, { accessToken: VERTEX_TOKEN, expireTime: new Date(Date.now() + 3600_000).toISOString() });
      }
      send(404, { error: "not found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  fake.host = `127.0.0.1:${port}`;
  fake.baseUrl = `http://${fake.host}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
