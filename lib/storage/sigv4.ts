/**
 * AWS Signature Version 4 for S3 requests: the one piece of the S3 protocol we need, small
 * enough to own instead of pulling in the AWS SDK (docs/decisions/media-storage-s3.md).
 * @see https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
 */
import { createHash, createHmac } from "node:crypto";

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service?: string;
}

export const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** RFC 3986 encoding as SigV4 wants it (`/` kept in paths). */
export function uriEncode(s: string, keepSlash: boolean): string {
  return Array.from(new TextEncoder().encode(s))
    .map((b) => {
      const c = String.fromCharCode(b);
      if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === "/")) return c;
      return `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

export function amzDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/**
 * Returns the headers to send (the given ones plus x-amz-date, x-amz-content-sha256 and
 * authorization). `headers` keys must be lower-case; all of them are signed.
 */
export function signRequest(input: {
  method: string;
  url: URL;
  headers: Record<string, string>;
  payloadSha256: string;
  creds: SigV4Credentials;
  now?: Date;
}): Record<string, string> {
  const { method, url, creds } = input;
  const date = amzDate(input.now ?? new Date());
  const day = date.slice(0, 8);
  const service = creds.service ?? "s3";
  const headers: Record<string, string> = {
    ...input.headers,
    host: url.host,
    "x-amz-content-sha256": input.payloadSha256,
    "x-amz-date": date,
  };
  const names = Object.keys(headers).map((h) => h.toLowerCase()).sort();
  const canonicalHeaders = names.map((n) => `${n}:${String(headers[n]).trim().replace(/\s+/g, " ")}\n`).join("");
  const signedHeaders = names.join(";");
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => [uriEncode(k, false), uriEncode(v, false)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const canonicalPath = uriEncode(decodeURIComponent(url.pathname), true);
  const canonicalRequest = [method, canonicalPath, query, canonicalHeaders, signedHeaders, input.payloadSha256].join("\n");
  const scope = `${day}/${creds.region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", date, scope, createHash("sha256").update(canonicalRequest).digest("hex")].join("\n");
  const kDate = hmac(`AWS4${creds.secretAccessKey}`, day);
  const kSigning = hmac(hmac(hmac(kDate, creds.region), service), "aws4_request");
  const signature = createHmac("sha256", kSigning).update(stringToSign).digest("hex");
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`;
  return headers;
}
