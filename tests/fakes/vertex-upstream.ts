/**
 * Fake Google Vertex AI (cloud.google.com/vertex-ai docs: "Generate content with the Gemini API
 * in Vertex AI", "Use Claude models": rawPredict / streamRawPredict, `anthropic_version:
 * vertex-2023-10-16`, no `model` in the body) and a fake Google OAuth token endpoint that takes a
 * service account's JWT assertion (RFC 7523) only when its RS256 signature verifies with the
 * account's public key, its claims name the account, the endpoint and the cloud-platform scope,
 * and it has not expired. Each publisher's answers are the Gemini and Anthropic fakes' own.
 */
import { createVerify, generateKeyPairSync } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicProtocol } from "./anthropic-upstream";
import { geminiProtocol } from "./gemini-upstream";
import { startFake, type FakeTextUpstream, type Protocol } from "./text-fake-core";

export const VERTEX_PROJECT = "acme-genai-prod";
export const VERTEX_REGION = "us-east5";
export const VERTEX_TOKEN = "ya29.fake-vertex-access-token";

const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

/** A service account key file as Google issues it (the key generated for this run). */
export function serviceAccountKey(tokenUri: string, key = privateKey): Record<string, string> {
  return {
    type: "service_account",
    project_id: VERTEX_PROJECT,
    private_key_id: "0123456789abcdef0123456789abcdef01234567",
    private_key: key.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: `gateway@${VERTEX_PROJECT}.iam.gserviceaccount.com`,
    client_id: "100000000000000000001",
    token_uri: tokenUri,
  };
}

/** Another key, whose signature the token endpoint must refuse. */
export const STRANGER_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;

const PREFIX = `/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_REGION}/publishers/`;
const isClaude = (body: any) => body && Array.isArray(body.messages);

const vertexProtocol: Protocol = {
  match: (path, body) => {
    const p = path.split("?")[0]!;
    if (!p.startsWith(PREFIX)) return null;
    if (/^google\/models\/[^/:]+:generateContent$/.test(p.slice(PREFIX.length))) return { stream: false };
    if (/^google\/models\/[^/:]+:streamGenerateContent$/.test(p.slice(PREFIX.length)) && path.includes("alt=sse")) return { stream: true };
    if (/^anthropic\/models\/[^/:]+:rawPredict$/.test(p.slice(PREFIX.length))) return { stream: false };
    if (/^anthropic\/models\/[^/:]+:streamRawPredict$/.test(p.slice(PREFIX.length))) return { stream: body?.stream === true };
    return null;
  },
  keyOf: (req) => req.headers.authorization?.replace(/^Bearer /, ""),
  refuse: (req, body, path) => {
    if (path.includes("/publishers/anthropic/")) {
      if (body?.model !== undefined) return { status: 400, message: "model: Extra inputs are not permitted" };
      if (body?.anthropic_version !== "vertex-2023-10-16") return { status: 400, message: "anthropic_version: Input should be 'vertex-2023-10-16'" };
      return anthropicProtocol.refuse!(req, body, path);
    }
    return geminiProtocol.refuse!(req, body, path);
  },
  errorBody: (status, message) => ({ error: { code: status, message, status: status === 401 ? "UNAUTHENTICATED" : status === 400 ? "INVALID_ARGUMENT" : "INTERNAL" } }),
  json: (s, body) => (isClaude(body) ? anthropicProtocol : geminiProtocol).json(s, body),
  events: (s, body) => (isClaude(body) ? anthropicProtocol : geminiProtocol).events(s, body),
  truncateAt: (events) => Math.max(1, events.length - 1),
};

/** `scriptFor` answers each request from its body (an agent's tool loop), the fake's refusals and auth unchanged. */
export function startFakeVertex(opts: { scriptFor?: Protocol["scriptFor"] } = {}): Promise<FakeTextUpstream> {
  return startFake(opts.scriptFor ? { ...vertexProtocol, scriptFor: opts.scriptFor } : vertexProtocol, VERTEX_TOKEN, "");
}

export interface FakeGoogleOAuth {
  tokenUrl: string;
  /** What each assertion said and whether it was accepted. */
  requests: Array<{ claims: Record<string, unknown> | null; accepted: boolean }>;
  close(): Promise<void>;
}

export async function startFakeGoogleOAuth(): Promise<FakeGoogleOAuth> {
  const fake: FakeGoogleOAuth = { tokenUrl: "", requests: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c));
    req.on("end", () => {
      const form = new URLSearchParams(raw);
      const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      const [head, claimsPart, sig] = (form.get("assertion") ?? "").split(".");
      let claims: Record<string, any> | null = null;
      try {
        claims = JSON.parse(Buffer.from(claimsPart ?? "", "base64url").toString("utf8"));
      } catch {
        claims = null;
      }
      const signed = !!head && !!sig && createVerify("RSA-SHA256").update(`${head}.${claimsPart}`).verify(publicKey, Buffer.from(sig, "base64url"));
      const header = signed ? JSON.parse(Buffer.from(head!, "base64url").toString("utf8")) : {};
      const now = Math.floor(Date.now() / 1000);
      const accepted =
        form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
        signed &&
        header.alg === "RS256" &&
        claims?.iss === `gateway@${VERTEX_PROJECT}.iam.gserviceaccount.com` &&
        claims?.aud === fake.tokenUrl &&
        claims?.scope === "https://www.googleapis.com/auth/cloud-platform" &&
        typeof claims?.exp === "number" &&
        claims.exp > now &&
        claims.exp - claims.iat <= 3600;
      fake.requests.push({ claims, accepted });
      if (!accepted) return send(400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
      send(200, { access_token: VERTEX_TOKEN, expires_in: 3599, token_type: "Bearer" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  fake.tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
