/**
 * The async pre-step of adapters whose upstream takes no URL for an image or document (Gemini
 * wants inline data; a chat `file` part takes none): the gateway downloads `http(s)` URLs itself
 * and inlines the bytes (docs/conversion-policy.md, "Documents and image URLs").
 *
 * Downloads go through the webhooks' SSRF guard (shape check, then the guarded dispatcher that
 * checks the address it dials; no redirects followed), capped at MEDIA_URL_MAX_MB, with the
 * content type checked. Each source is fetched once per request, whatever the failover entries.
 */
import { request, type Dispatcher } from "undici";
import type { CanonicalRequest, ContentPart, DocumentPart, DocumentSource, ImagePart, ImageSource, ToolResultContent } from "../canonical";
import { env } from "../../env";
import { processSingleton } from "../../process-singleton";
import { createGuardedAgent, SsrfBlockedError } from "../../tasks/guarded-dispatcher";
import { checkWebhookUrlShape, makePolicy, type WebhookUrlPolicy } from "../../tasks/ssrf";
import type { InlineMediaSpec, Inexpressible } from "./text-types";
import type { Ok, Result } from "../../result";

/** Time for the whole download. */
export const MEDIA_URL_TIMEOUT_MS = 15_000;

/** URLs the gateway downloads for one request, at most (each is up to MEDIA_URL_MAX_MB). */
export const MEDIA_URLS_PER_REQUEST = 8;

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/heic", "image/heif"]);
const DOCUMENT_TYPES = new Set(["application/pdf", "text/plain"]);

interface Fetcher {
  policy: WebhookUrlPolicy;
  dispatcher: Dispatcher;
  maxBytes: number;
}

const slot = processSingleton("gateway.mediaFetcher", () => ({ current: undefined as Fetcher | undefined }));

function fetcher(): Fetcher {
  const g = slot();
  if (!g.current) {
    const e = env();
    const policy = makePolicy({ publicBaseUrl: e.publicBaseUrl, allowHosts: e.MEDIA_URL_ALLOW_HOSTS });
    g.current = { policy, dispatcher: createGuardedAgent({ policy }), maxBytes: e.MEDIA_URL_MAX_MB * 1024 * 1024 };
  }
  return g.current;
}

/** For tests: the allow-list and cap of this process (undefined: back to the environment's). */
export function setMediaFetcher(opts: { allowHosts: string[]; maxBytes: number } | undefined): void {
  if (!opts) return void (slot().current = undefined);
  const policy = makePolicy({ publicBaseUrl: env().publicBaseUrl, allowHosts: opts.allowHosts });
  slot().current = { policy, dispatcher: createGuardedAgent({ policy }), maxBytes: opts.maxBytes };
}

/** A downloaded file (base64), or why it could not be (the client's 400 quotes it). */
type Fetched = Result<{ mediaType: string; data: string; bytes: number }, string>;

/** Per request (keyed by the parsed source object, shared by every entry's copy of the request). */
const inflight = new WeakMap<object, Promise<Fetched>>();

/** `maxBytes`: what is left of the request's inline allowance (the file cap if smaller); `limit` names it. */
async function download(url: string, kind: "image" | "document", maxBytes: number, limit: string): Promise<Fetched> {
  const f = fetcher();
  const shape = checkWebhookUrlShape(url, f.policy);
  if (!shape.ok) return { ok: false, error: `the URL ${shape.error}` };
  let res: Dispatcher.ResponseData;
  try {
    res = await request(shape.value.url, {
      method: "GET",
      dispatcher: f.dispatcher,
      signal: AbortSignal.timeout(MEDIA_URL_TIMEOUT_MS),
      headersTimeout: MEDIA_URL_TIMEOUT_MS,
      bodyTimeout: MEDIA_URL_TIMEOUT_MS,
      headers: { accept: kind === "image" ? "image/*" : "application/pdf, text/plain" },
    });
  } catch (err) {
    if (err instanceof SsrfBlockedError || (err as { cause?: unknown }).cause instanceof SsrfBlockedError)
      return { ok: false, error: "the URL points at a non-public address" };
    return { ok: false, error: "the URL could not be fetched" };
  }
  // Dropping the body early must not surface as an unhandled stream error.
  res.body.on("error", () => {});
  const drop = (reason: string): Fetched => (res.body.destroy(), { ok: false, error: reason });
  if (res.statusCode !== 200) return drop(`the URL answered ${res.statusCode}${res.statusCode >= 300 && res.statusCode < 400 ? " (redirects are not followed)" : ""}`);
  const type = String(res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const allowed = kind === "image" ? IMAGE_TYPES : DOCUMENT_TYPES;
  if (!allowed.has(type)) return drop(`the URL answered with content type "${type || "none"}", not ${kind === "image" ? "an image (png, jpeg, gif, webp, heic)" : "a PDF or plain text"}`);
  const cap = Math.min(maxBytes, f.maxBytes);
  const tooLarge =
    cap < f.maxBytes ? `the files of this request are larger than ${limit} allows` : `the file is larger than ${f.maxBytes / (1024 * 1024)} MB (MEDIA_URL_MAX_MB)`;
  if (Number(res.headers["content-length"] ?? 0) > cap) return drop(tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > cap) return drop(tooLarge);
      chunks.push(c as Buffer);
    }
  } catch {
    return { ok: false, error: "the URL could not be fetched" };
  }
  return { ok: true, value: { mediaType: type, data: Buffer.concat(chunks).toString("base64"), bytes: size } };
}

/** One image URL through the same guard and caps (POST /v1/images/edits' JSON form), after admission. */
export async function downloadImageUrl(url: string, maxBytes: number, limit: string): Promise<Result<Buffer, string>> {
  const got = await download(url, "image", maxBytes, limit);
  return got.ok ? { ok: true, value: Buffer.from(got.value.data, "base64") } : got;
}

/** The most one downloaded file may be (MEDIA_URL_MAX_MB): what a hold counts a URL image as. */
export const mediaUrlMaxBytes = () => fetcher().maxBytes;

function fetchOnce(source: ImageSource | DocumentSource, url: string, kind: "image" | "document", maxBytes: number, limit: string): Promise<Fetched> {
  let p = inflight.get(source);
  if (!p) inflight.set(source, (p = download(url, kind, maxBytes, limit)));
  return p;
}

const isHttp = (url: string) => /^https?:\/\//i.test(url);

type Media = ImagePart | DocumentPart;
type UrlMedia = Media & { source: { kind: "url"; url: string } };

/** Parts (and parts inside tool results) whose URL the gateway must download for this target. */
const wants = (kinds: Pick<InlineMediaSpec, "images" | "documents">) => (p: ContentPart | ToolResultContent): p is UrlMedia =>
  ((kinds.images && p.type === "image") || (kinds.documents && p.type === "document")) && p.source.kind === "url" && isHttp(p.source.url);

/** How many URLs the gateway would download for this request to reach a target of this kind, tool results included. */
export function mediaUrlCount(req: CanonicalRequest, kinds: Pick<InlineMediaSpec, "images" | "documents">): number {
  const media = wants(kinds);
  let n = 0;
  for (const m of req.messages)
    for (const p of m.parts) {
      if (media(p)) n++;
      else if (p.type === "tool_result") for (const c of p.content) if (media(c)) n++;
    }
  return n;
}

/** More URLs than one request may make the gateway download: a 400 naming the limit. */
export function tooManyMediaUrls(count: number): string {
  return `${count} image or document URLs need downloading for this model; the gateway downloads at most ${MEDIA_URLS_PER_REQUEST} per request (send the others inline)`;
}

/**
 * The request with every http(s) URL of the chosen kinds replaced by the downloaded bytes
 * (a new request: parsed values are never changed in place), tool results included, or a 400
 * naming the first part that could not be fetched, or the limit it passed: at most
 * MEDIA_URLS_PER_REQUEST URLs, and no more bytes in all than the target takes inline (a
 * download stops at the allowance left).
 */
export async function inlineUrls(req: CanonicalRequest, spec: InlineMediaSpec): Promise<Ok<CanonicalRequest> | Inexpressible> {
  const media = wants(spec);
  const count = mediaUrlCount(req, spec);
  if (count === 0) return { ok: true, value: req };
  if (count > MEDIA_URLS_PER_REQUEST) return { ok: false, error: { field: "messages", message: tooManyMediaUrls(count) } };
  let left = spec.maxInlineBytes;
  /** The part with its bytes in place of the URL, or why it could not be fetched. */
  const inlined = async (p: UrlMedia): Promise<Media | Inexpressible> => {
    const got = await fetchOnce(p.source, p.source.url, p.type, left, spec.limitName);
    if (!got.ok) return { ok: false, error: { field: p.path ?? (p.type === "image" ? "image" : "messages"), message: `${got.error}; this model needs the ${p.type} inline, so the gateway downloads it` } };
    left -= got.value.bytes;
    if (left < 0) return { ok: false, error: { field: p.path ?? "messages", message: `the files of this request are larger than ${spec.limitName} allows` } };
    const { mediaType, data } = got.value;
    if (p.type === "image") return { ...p, source: { kind: "base64", mediaType, data } };
    if (mediaType === "text/plain") return { ...p, source: { kind: "text", text: Buffer.from(data, "base64").toString("utf8") } };
    return { ...p, source: { kind: "base64", mediaType, data } };
  };
  const wanted = (p: ContentPart) => media(p) || (p.type === "tool_result" && p.content.some(media));
  const messages = [];
  for (const m of req.messages) {
    if (!m.parts.some(wanted)) {
      messages.push(m);
      continue;
    }
    const parts: ContentPart[] = [];
    for (const p of m.parts) {
      if (media(p)) {
        const r = await inlined(p);
        if ("ok" in r) return r;
        parts.push(r);
      } else if (p.type === "tool_result" && p.content.some(media)) {
        const content: ToolResultContent[] = [];
        for (const c of p.content) {
          const r = media(c) ? await inlined(c) : c;
          if ("ok" in r) return r;
          content.push(r);
        }
        parts.push({ ...p, content });
      } else parts.push(p);
    }
    messages.push({ ...m, parts });
  }
  return { ok: true, value: { ...req, messages } };
}
