/**
 * AWS Signature Version 4 for `bedrock` upstreams, by the AWS SDK's own signer
 * (@smithy/signature-v4): static keys (with a session token for temporary ones), or, with none
 * configured, the SDK's default credential chain (environment, shared config and SSO, web
 * identity, container and instance metadata), whose provider caches and refreshes them.
 */
import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import { SignatureV4 } from "@smithy/signature-v4";
import { processSingleton } from "../../process-singleton";
import type { UpstreamInfo } from "../model-route";

/** The hash the signer takes: SHA-256, or HMAC-SHA-256 with a key, on node:crypto. */
export class Sha256 {
  private h: Hash | Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = this.make();
  }
  private make(): Hash | Hmac {
    if (this.secret === undefined) return createHash("sha256");
    const key = typeof this.secret === "string" ? this.secret : ArrayBuffer.isView(this.secret) ? Buffer.from(this.secret.buffer, this.secret.byteOffset, this.secret.byteLength) : Buffer.from(this.secret);
    return createHmac("sha256", key);
  }
  update(chunk: Uint8Array | string): void {
    this.h.update(chunk);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
  reset(): void {
    this.h = this.make();
  }
}

/** One default chain per process: it caches what it resolved until it expires. */
const chain = processSingleton("gateway.bedrock.credentialChain", () => defaultProvider());

export function bedrockRegion(u: UpstreamInfo): string {
  return u.settings?.region ?? "us-east-1";
}

/** Bedrock's control plane (model lists: what "Test connection" reads), or the baseUrl override. */
export function bedrockControlUrl(u: UpstreamInfo): string {
  return `${(u.baseUrl || `https://bedrock.${bedrockRegion(u)}.amazonaws.com`).replace(/\/+$/, "")}/foundation-models?byOutputModality=TEXT`;
}

/** Bedrock Runtime's endpoint for the region, unless the upstream's baseUrl overrides it. */
export function bedrockBaseUrl(u: UpstreamInfo): string {
  return (u.baseUrl || `https://bedrock-runtime.${bedrockRegion(u)}.amazonaws.com`).replace(/\/+$/, "");
}

/** The signed headers for `method` on `url` with `body` (the host is signed; undici sends the same). */
export async function signBedrock(u: UpstreamInfo, method: "GET" | "POST", url: string, body: Buffer | undefined, headers: Record<string, string>): Promise<Record<string, string>> {
  const c = u.credentials;
  const credentials = c?.accessKeyId && c.secretAccessKey ? { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}) } : chain();
  const signer = new SignatureV4({ credentials, region: bedrockRegion(u), service: "bedrock", sha256: Sha256 });
  const target = new URL(url);
  const signed = await signer.sign({
    method,
    protocol: target.protocol,
    hostname: target.hostname,
    port: target.port ? Number(target.port) : undefined,
    path: target.pathname,
    query: Object.fromEntries(target.searchParams),
    headers: Object.assign({ host: target.host }, headers),
    body,
  });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(signed.headers)) if (k !== "host") out[k] = String(v);
  return out;
}
