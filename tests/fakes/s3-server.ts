/**
 * A tiny S3-compatible object store on 127.0.0.1:0 (path-style PUT/GET/HEAD/DELETE with Range),
 * checking every request's SigV4 signature by recomputing it. In memory; records requests.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { signRequest } from "../../lib/storage/sigv4";

export interface FakeS3 {
  endpoint: string;
  objects: Map<string, { body: Buffer; contentType: string }>;
  requests: Array<{ method: string; path: string; signatureOk: boolean }>;
  close(): Promise<void>;
}

export async function startFakeS3(creds: { accessKeyId: string; secretAccessKey: string; region: string }): Promise<FakeS3> {
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const requests: FakeS3["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
      const auth = String(req.headers.authorization ?? "");
      const signed = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(";") ?? [];
      const given: Record<string, string> = {};
      for (const h of signed) if (!["host", "x-amz-date", "x-amz-content-sha256"].includes(h)) given[h] = String(req.headers[h] ?? "");
      const dateText = String(req.headers["x-amz-date"] ?? "");
      const now = new Date(`${dateText.slice(0, 4)}-${dateText.slice(4, 6)}-${dateText.slice(6, 8)}T${dateText.slice(9, 11)}:${dateText.slice(11, 13)}:${dateText.slice(13, 15)}Z`);
      let expected = "";
      try {
        expected = signRequest({ method: req.method ?? "GET", url, headers: given, payloadSha256: String(req.headers["x-amz-content-sha256"] ?? ""), creds, now }).authorization!;
      } catch {
        expected = "";
      }
      const signatureOk = expected === auth;
      requests.push({ method: req.method ?? "", path: url.pathname, signatureOk });
      if (!signatureOk) return void res.writeHead(403).end("<Error><Code>SignatureDoesNotMatch</Code></Error>");
      const key = decodeURIComponent(url.pathname);
      const obj = objects.get(key);
      switch (req.method) {
        case "PUT":
          objects.set(key, { body: Buffer.concat(chunks), contentType: String(req.headers["content-type"] ?? "") });
          return void res.writeHead(200).end();
        case "HEAD":
          if (!obj) return void res.writeHead(404).end();
          return void res.writeHead(200, { "content-length": obj.body.length, "content-type": obj.contentType }).end();
        case "GET": {
          if (!obj) return void res.writeHead(404).end("<Error><Code>NoSuchKey</Code></Error>");
          const m = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ""));
          if (m) {
            const part = obj.body.subarray(Number(m[1]), Number(m[2]) + 1);
            return void res.writeHead(206, { "content-type": obj.contentType, "content-length": part.length }).end(part);
          }
          return void res.writeHead(200, { "content-type": obj.contentType, "content-length": obj.body.length }).end(obj.body);
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
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
