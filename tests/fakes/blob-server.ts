/**
 * A Vercel Blob store on 127.0.0.1:0, speaking the API @vercel/blob uses: `PUT /?pathname=`
 * (put), `GET /?url=` (head), `POST /delete`, `POST /mpu?pathname=` with `x-mpu-action`
 * create/upload/complete, and the blob URLs themselves (`/store/<pathname>`, standing in for
 * `<store>.private.blob.vercel-storage.com`) with Range. Every request must carry the store's
 * bearer token (403 `forbidden` otherwise, as Blob answers). In memory; records requests.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeBlob {
  apiUrl: string;
  token: string;
  blobs: Map<string, { body: Buffer; contentType: string; access: string }>;
  requests: Array<{ method: string; path: string; query: string; action?: string; bytes: number; authorized: boolean }>;
  close(): Promise<void>;
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

export async function startFakeBlob(token = "vercel_blob_rw_teststore_secret"): Promise<FakeBlob> {
  const blobs: FakeBlob["blobs"] = new Map();
  const uploads = new Map<string, { pathname: string; parts: Map<number, Buffer> }>();
  const requests: FakeBlob["requests"] = [];
  let base = "";

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  const fail = (res: http.ServerResponse, status: number, code: string, message: string) => json(res, status, { error: { code, message } });
  const describe = (pathname: string) => {
    const b = blobs.get(pathname)!;
    const url = `${base}/store/${pathname}`;
    return { url, downloadUrl: `${url}?download=1`, pathname, size: b.body.length, uploadedAt: new Date().toISOString(), contentType: b.contentType, contentDisposition: `attachment; filename="${pathname.split("/").pop()}"`, cacheControl: "public, max-age=2592000" };
  };
  const store = (pathname: string, body: Buffer, h: http.IncomingHttpHeaders) => {
    blobs.set(pathname, { body, contentType: String(h["x-content-type"] ?? "application/octet-stream"), access: String(h["x-vercel-blob-access"] ?? "public") });
    const { size: _size, uploadedAt: _at, cacheControl: _cc, ...put } = describe(pathname);
    return put;
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", base);
    const body = await readBody(req);
    const authorized = req.headers.authorization === `Bearer ${token}`;
    const action = req.headers["x-mpu-action"] as string | undefined;
    requests.push({ method: req.method ?? "", path: url.pathname, query: url.search, action, bytes: body.length, authorized });
    if (!authorized) return fail(res, 403, "forbidden", "Access denied, please provide a valid token for this resource.");
    const pathname = url.searchParams.get("pathname") ?? "";

    if (url.pathname.startsWith("/store/")) {
      const b = blobs.get(decodeURIComponent(url.pathname.slice("/store/".length)));
      if (!b || req.method !== "GET") return res.writeHead(404).end("Not Found");
      const m = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ""));
      if (!m) return res.writeHead(200, { "content-type": b.contentType, "content-length": b.body.length, "accept-ranges": "bytes" }).end(b.body);
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), b.body.length - 1);
      return res
        .writeHead(206, { "content-type": b.contentType, "content-range": `bytes ${start}-${end}/${b.body.length}`, "content-length": end - start + 1 })
        .end(b.body.subarray(start, end + 1));
    }
    if (req.method === "PUT" && url.pathname === "/" && pathname) {
      if (blobs.has(pathname) && req.headers["x-allow-overwrite"] !== "1") return fail(res, 400, "bad_request", "This blob already exists");
      return json(res, 200, store(pathname, body, req.headers));
    }
    if (req.method === "GET" && url.pathname === "/" && url.searchParams.has("url")) {
      const u = url.searchParams.get("url")!;
      const p = u.startsWith(`${base}/store/`) ? u.slice(`${base}/store/`.length) : u;
      return blobs.has(p) ? json(res, 200, describe(p)) : fail(res, 404, "not_found", "The requested blob does not exist");
    }
    if (req.method === "POST" && url.pathname === "/delete") {
      for (const u of (JSON.parse(body.toString()) as { urls: string[] }).urls) blobs.delete(u.startsWith(`${base}/store/`) ? u.slice(`${base}/store/`.length) : u);
      return json(res, 200, {});
    }
    if (req.method === "POST" && url.pathname === "/mpu" && pathname) {
      if (action === "create") {
        const uploadId = randomUUID();
        uploads.set(uploadId, { pathname, parts: new Map() });
        return json(res, 200, { uploadId, key: `key-${pathname}` });
      }
      const up = uploads.get(String(req.headers["x-mpu-upload-id"]));
      if (!up || req.headers["x-mpu-key"] !== encodeURI(`key-${pathname}`)) return fail(res, 400, "bad_request", "unknown upload");
      if (action === "upload") {
        const n = Number(req.headers["x-mpu-part-number"]);
        up.parts.set(n, body);
        return json(res, 200, { etag: `"etag-${n}"`, partNumber: n });
      }
      if (action === "complete") {
        const list = JSON.parse(body.toString()) as Array<{ partNumber: number; etag: string }>;
        if (list.some((p) => p.etag !== `"etag-${p.partNumber}"` || !up.parts.has(p.partNumber))) return fail(res, 400, "bad_request", "bad part list");
        uploads.delete(String(req.headers["x-mpu-upload-id"]));
        return json(res, 200, store(pathname, Buffer.concat(list.map((p) => up.parts.get(p.partNumber)!)), req.headers));
      }
    }
    fail(res, 400, "bad_request", "unsupported request");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: base,
    token,
    blobs,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
