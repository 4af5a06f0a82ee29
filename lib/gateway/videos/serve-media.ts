/**
 * Streams a stored media file as an HTTP answer with `Range` support (single ranges; a
 * multi-range request gets the whole file, which RFC 9110 allows), so browsers can seek.
 * The body is the storage stream itself: a video is never held whole in memory. When the store
 * can presign (S3 with S3_PRESIGNED_DOWNLOAD_TTL_S > 0) the answer is instead a 302 to the
 * bucket, which then serves the bytes and the ranges itself; the caller has already authorized it.
 */
import { errorResponse, type ApiError } from "../errors";
import type { GatewayResponse } from "../http";
import type { ByteRange, MediaStorage } from "../../storage/media-storage";

export type RangeParse = { kind: "none" } | { kind: "range"; range: ByteRange } | { kind: "unsatisfiable" };

export function parseRange(value: string | undefined, size: number): RangeParse {
  if (!value) return { kind: "none" };
  const m = /^bytes=(\d*)-(\d*)$/.exec(value.trim());
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "none" };
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return { kind: "unsatisfiable" };
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== "" && Number(m[2]) < start) return { kind: "none" };
  }
  if (start >= size || size === 0) return { kind: "unsatisfiable" };
  return { kind: "range", range: { start, end } };
}

export async function serveStoredMedia(
  storage: MediaStorage,
  key: string,
  opts: { range?: string; filename: string; missing: ApiError },
): Promise<GatewayResponse> {
  const st = await storage.stat(key);
  if (!st) return errorResponse(opts.missing);
  const url = await storage.downloadUrl?.(key, { filename: opts.filename, contentType: "video/mp4" });
  if (url) return { status: 302, headers: { location: url, "cache-control": "no-store" }, body: "" };
  const base: Record<string, string> = {
    "content-type": "video/mp4",
    "accept-ranges": "bytes",
    "cache-control": "private, max-age=3600",
    "content-disposition": `inline; filename="${opts.filename}"`,
  };
  const r = parseRange(opts.range, st.size);
  if (r.kind === "unsatisfiable") {
    const res = errorResponse({
      status: 416,
      type: "invalid_request",
      code: "range_not_satisfiable",
      message: `The requested range is outside the file (${st.size} bytes).`,
    });
    res.headers["content-range"] = `bytes */${st.size}`;
    return res;
  }
  if (r.kind === "range") {
    const body = await storage.read(key, r.range);
    if (!body) return errorResponse(opts.missing);
    return {
      status: 206,
      headers: { ...base, "content-length": String(r.range.end - r.range.start + 1), "content-range": `bytes ${r.range.start}-${r.range.end}/${st.size}` },
      body,
    };
  }
  const body = await storage.read(key);
  if (!body) return errorResponse(opts.missing);
  return { status: 200, headers: { ...base, "content-length": String(st.size) }, body };
}
