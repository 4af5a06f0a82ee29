/**
 * A tiny S3-compatible object store on 127.0.0.1:0: path-style PutObject, HeadObject, GetObject
 * (with Range), DeleteObject, the multipart-upload calls, and presigned GETs. It checks every
 * request's SigV4 signature by signing the same request again with the AWS SDK's own signer
 * (`@smithy/signature-v4`) and the payload hash against the body it received, and refuses a
 * mismatch with S3's 403. In memory; records requests.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Sha256 } from "@smithy/core/checksum";
import { SignatureV4 } from "@smithy/signature-v4";

export interface FakeS3 {
  endpoint: string;
  objects: Map<string, { body: Buffer; contentType: string }>;
  requests: Array<{ method: string; path: string; query: string; signatureOk: boolean }>;
  close(): Promise<void>;
}

type Creds = { accessKeyId: string; secretAccessKey: string; region: string };

/** 20260101T000000Z → Date */
function amzDate(s: string): Date {
  return new Date(`${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`);
}

async function verify(signer: SignatureV4, req: http.IncomingMessage, url: URL, body: Buffer): Promise<boolean> {
  // The query is signed as sent, less what the signer adds itself (and the payload hash, which
  // the SDK presigns as a header, UNSIGNED-PAYLOAD, that the signer moves into the query).
  const added = ["X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature", "X-Amz-Content-Sha256"];
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!added.includes(k)) query[k] = v;
  const base = { method: req.method ?? "GET", protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, query };
  const presigned = url.searchParams.get("X-Amz-Signature");
  if (presigned) {
    const signed = (url.searchParams.get("X-Amz-SignedHeaders") ?? "").split(";");
    const headers: Record<string, string> = {};
    for (const h of signed) headers[h] = String(req.headers[h] ?? "");
    const payload = url.searchParams.get("X-Amz-Content-Sha256");
    if (payload) headers["X-Amz-Content-Sha256"] = payload;
    const date = amzDate(url.searchParams.get("X-Amz-Date") ?? "");
    const expires = Number(url.searchParams.get("X-Amz-Expires"));
    if (!(date.getTime() + expires * 1000 > Date.now())) return false;
    const again = await signer.presign({ ...base, headers } as never, { signingDate: date, expiresIn: expires });
    return (again as unknown as { query: Record<string, string> }).query["X-Amz-Signature"] === presigned;
  }
  const auth = String(req.headers.authorization ?? "");
  const signed = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(";") ?? [];
  const headers: Record<string, string> = {};
  for (const h of signed) headers[h] = String(req.headers[h] ?? "");
  const payloadHash = String(req.headers["x-amz-content-sha256"] ?? "");
  if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== createHash("sha256").update(body).digest("hex")) return false;
  const again = await signer.sign({ ...base, headers } as never, { signingDate: amzDate(String(req.headers["x-amz-date"] ?? "")) });
  return (again as unknown as { headers: Record<string, string> }).headers.authorization === auth;
}

export async function startFakeS3(creds: Creds): Promise<FakeS3> {
  const signer = new SignatureV4({ credentials: creds, region: creds.region, service: "s3", sha256: Sha256, uriEscapePath: false });
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const uploads = new Map<string, { key: string; contentType: string; parts: Map<number, Buffer> }>();
  const requests: FakeS3["requests"] = [];
  let nextUpload = 1;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
      const body = Buffer.concat(chunks);
      const signatureOk = await verify(signer, req, url, body).catch(() => false);
      requests.push({ method: req.method ?? "", path: url.pathname, query: url.search, signatureOk });
      if (!signatureOk) return void res.writeHead(403).end("<Error><Code>SignatureDoesNotMatch</Code></Error>");
      const key = decodeURIComponent(url.pathname);
      const q = url.searchParams;
      const xml = (status: number, text: string) => res.writeHead(status, { "content-type": "application/xml" }).end(`<?xml version="1.0" encoding="UTF-8"?>${text}`);
      // Multipart upload: create, parts, complete, abort.
      if (req.method === "POST" && q.has("uploads")) {
        const id = `up-${nextUpload++}`;
        uploads.set(id, { key, contentType: String(req.headers["content-type"] ?? ""), parts: new Map() });
        return void xml(200, `<InitiateMultipartUploadResult><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
      }
      const uploadId = q.get("uploadId");
      if (uploadId) {
        const up = uploads.get(uploadId);
        if (!up) return void xml(404, "<Error><Code>NoSuchUpload</Code></Error>");
        if (req.method === "PUT") {
          up.parts.set(Number(q.get("partNumber")), body);
          return void res.writeHead(200, { etag: `"${createHash("md5").update(body).digest("hex")}"` }).end();
        }
        if (req.method === "POST") {
          const numbers = [...body.toString().matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => Number(m[1]));
          objects.set(up.key, { body: Buffer.concat(numbers.map((n) => up.parts.get(n)!)), contentType: up.contentType });
          uploads.delete(uploadId);
          return void xml(200, `<CompleteMultipartUploadResult><Key>${up.key}</Key><ETag>"done"</ETag></CompleteMultipartUploadResult>`);
        }
        if (req.method === "DELETE") {
          uploads.delete(uploadId);
          return void res.writeHead(204).end();
        }
      }
      const obj = objects.get(key);
      switch (req.method) {
        case "PUT":
          objects.set(key, { body, contentType: String(req.headers["content-type"] ?? "") });
          return void res.writeHead(200, { etag: `"${createHash("md5").update(body).digest("hex")}"` }).end();
        case "HEAD":
          if (!obj) return void res.writeHead(404).end();
          return void res.writeHead(200, { "content-length": obj.body.length, "content-type": obj.contentType }).end();
        case "GET": {
          if (!obj) return void xml(404, "<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>");
          const type = q.get("response-content-type") ?? obj.contentType;
          const extra: Record<string, string> = q.get("response-content-disposition") ? { "content-disposition": q.get("response-content-disposition")! } : {};
          const m = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ""));
          if (m) {
            const part = obj.body.subarray(Number(m[1]), Number(m[2]) + 1);
            return void res
              .writeHead(206, { ...extra, "content-type": type, "content-length": part.length, "content-range": `bytes ${m[1]}-${Number(m[1]) + part.length - 1}/${obj.body.length}` })
              .end(part);
          }
          return void res.writeHead(200, { ...extra, "content-type": type, "content-length": obj.body.length }).end(obj.body);
        }
        case "DELETE":
          objects.delete(key);
          return void res.writeHead(204).end();
        default:
          return void res.writeHead(405).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
