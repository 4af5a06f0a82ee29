/**
 * Opens a finished video at a URL a video vendor gave us, streamed (never read whole), following
 * redirects by hand: the vendor's credential goes to the vendor's own origin only, never to the
 * storage host a download redirects to (the Gemini API's file download answers 302).
 */
import { request } from "undici";
import { classifyFailure, transportFailure, type Outcome } from "../errors";
import type { VideoContent } from "./video-types";

const MAX_REDIRECTS = 5;
const MAX_ERROR_BYTES = 64 * 1024;
/** Downloading a finished MP4 may take minutes; this is the longest silence, not the whole download. */
export const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export async function openMedia(
  url: string,
  opts: { headers?: Record<string, string>; signal?: AbortSignal; timeoutMs?: number; secret?: string | null },
): Promise<Outcome<VideoContent>> {
  const origin = new URL(url).origin;
  let at = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const sameOrigin = new URL(at).origin === origin;
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(at, {
        method: "GET",
        headers: { accept: "video/*, application/octet-stream", ...(sameOrigin ? opts.headers : {}) },
        signal: opts.signal,
        headersTimeout: opts.timeoutMs ?? DOWNLOAD_TIMEOUT_MS,
        bodyTimeout: opts.timeoutMs ?? DOWNLOAD_TIMEOUT_MS,
      });
    } catch (err) {
      return transportFailure(err, opts.signal);
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === "string") {
      await res.body.dump();
      at = new URL(location, at).toString();
      continue;
    }
    if (res.statusCode >= 200 && res.statusCode < 300) {
      const type = String(res.headers["content-type"] ?? "video/mp4");
      return { ok: true, value: { body: res.body, contentType: type.startsWith("video/") ? type : "video/mp4" } };
    }
    let text = "";
    try {
      text = (await res.body.text()).slice(0, MAX_ERROR_BYTES);
    } catch {
      /* the status is enough */
    }
    return classifyFailure(res.statusCode, text, res.headers, { secret: opts.secret, url: at });
  }
  return classifyFailure(502, "too many redirects", {}, { url: at });
}
