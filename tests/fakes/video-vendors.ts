/**
 * Fakes of the video vendors' current APIs on 127.0.0.1:0, each verifying its auth, refusing what
 * the vendor documents it refuses (with the vendor's error shape), and recording what it got:
 *
 * - Gemini API Veo: POST /v1beta/models/{m}:predictLongRunning (x-goog-api-key; images as
 *   `inlineData`; no generateAudio), GET /v1beta/{operation name}, and the file download
 *   /v1beta/files/{f}:download?alt=media that redirects (302) to a storage host on another origin,
 *   which must never see the key.
 * - Vertex AI Veo: …/publishers/google/models/{m}:predictLongRunning and :fetchPredictOperation
 *   with a bearer from its own OAuth endpoint (a service account's RS256 JWT assertion, verified);
 *   images as `bytesBase64Encoded`; generateAudio required of Veo 3; the video inline in base64.
 * - Kling: /v1/videos/text2video and /image2video (HS256 JWT of access key + secret, verified:
 *   iss, exp, nbf, signature), GET /v1/videos/{endpoint}/{task_id}; the result on a CDN origin.
 * - Seedance (BytePlus ModelArk): /api/v3/contents/generations/tasks (bearer), GET …/{id}; reports
 *   the resolution and duration it rendered.
 *
 * Prompts steer: `[fail]` fails the job; `[rai]` (Veo) filters it; `[720p]` (Seedance) renders 720p
 * whatever was asked; `[short]` (Seedance, Kling) renders 4 seconds. `expireMedia()` makes every
 * vendor media URL answer 403, as vendors do after their retention.
 */
import { createHmac, createVerify, generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

const MP4 = fs.readFileSync(path.resolve(process.cwd(), "assets/demo-video/1280x720.mp4"));

export interface VendorRequest {
  method: string;
  path: string;
  authorized: boolean;
  body: any;
  headers: http.IncomingHttpHeaders;
}

interface Job {
  id: string;
  prompt: string;
  body: any;
  polls: number;
  resolution: string;
  seconds: number;
}

export interface FakeVideoVendor {
  baseUrl: string;
  requests: VendorRequest[];
  /** Requests to the storage/CDN origin (no credential may reach it). */
  mediaRequests: VendorRequest[];
  jobs: Map<string, Job>;
  stepsToComplete: number;
  expireMedia(expired?: boolean): void;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, url: URL, body: any, ctx: Ctx) => void;
interface Ctx {
  res: http.ServerResponse;
  send(status: number, body: unknown, headers?: Record<string, string>): void;
  record(authorized: boolean): void;
  mediaUrl(id: string): string;
  jobs: Map<string, Job>;
  state: { stepsToComplete: number; counter: number };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The vendor's API server and its media origin (another port: another origin). */
async function startVendor(handle: Handler, opts: { stepsToComplete?: number; apiPrefix?: string } = {}): Promise<FakeVideoVendor> {
  const requests: VendorRequest[] = [];
  const mediaRequests: VendorRequest[] = [];
  const jobs = new Map<string, Job>();
  const state = { stepsToComplete: opts.stepsToComplete ?? 2, counter: 0, expired: false };
  const media = http.createServer((req, res) => {
    mediaRequests.push({ method: req.method ?? "", path: req.url ?? "", authorized: false, body: null, headers: req.headers });
    if (state.expired) return void res.writeHead(403, { "content-type": "application/xml" }).end("<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>");
    res.writeHead(200, { "content-type": "video/mp4", "content-length": MP4.length }).end(MP4);
  });
  const mediaBase = await listen(media);
  const api = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const url = new URL(req.url ?? "/", "http://fake");
      const ctx: Ctx = {
        res,
        send: (status, b, headers = {}) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(b)),
        record: (authorized) => requests.push({ method: req.method ?? "", path: url.pathname + url.search, authorized, body, headers: req.headers }),
        mediaUrl: (id) => `${mediaBase}/media/${id}.mp4?X-Expires=${Math.floor(Date.now() / 1000) + 3600}`,
        jobs,
        state,
      };
      try {
        handle(req, url, body, ctx);
      } catch (err) {
        ctx.send(500, { error: { message: (err as Error).message } });
      }
    });
  });
  const baseUrl = (await listen(api)) + (opts.apiPrefix ?? "");
  return {
    baseUrl,
    requests,
    mediaRequests,
    jobs,
    get stepsToComplete() {
      return state.stepsToComplete;
    },
    set stepsToComplete(n: number) {
      state.stepsToComplete = n;
    },
    expireMedia: (expired = true) => void (state.expired = expired),
    close: () => Promise.all([new Promise<void>((r) => api.close(() => r())), new Promise<void>((r) => media.close(() => r()))]).then(() => undefined),
  };
}

const isB64 = (s: unknown) => typeof s === "string" && s.length > 0 && /^[A-Za-z0-9+/=]+$/.test(s);

function newJob(ctx: Ctx, prefix: string, prompt: string, body: any, resolution: string, seconds: number): Job {
  const id = `${prefix}${++ctx.state.counter}${Math.random().toString(36).slice(2, 8)}`;
  const job = { id, prompt, body, polls: 0, resolution, seconds };
  ctx.jobs.set(id, job);
  return job;
}

/** Polls until done: a job is done on its stepsToComplete-th poll. */
const advance = (ctx: Ctx, job: Job) => ++job.polls >= ctx.state.stepsToComplete;

// ---------------------------------------------------------------- Veo (Gemini API and Vertex AI)

const VEO_PARAMS = ["aspectRatio", "resolution", "durationSeconds", "negativePrompt", "personGeneration", "seed"];
const VERTEX_PARAMS = [...VEO_PARAMS, "generateAudio", "sampleCount", "storageUri", "enhancePrompt", "compressionQuality", "resizeMode"];

/** Veo's own refusals (the same model behind both APIs); null when the body is acceptable. */
function veoRefusal(body: any, model: string, dialect: "gemini" | "vertex"): string | null {
  const inst = body?.instances;
  if (!Array.isArray(inst) || inst.length !== 1 || typeof inst[0]?.prompt !== "string") return "* instances: exactly one instance with a prompt is required";
  const p = body.parameters ?? {};
  for (const k of Object.keys(p)) if (!(dialect === "gemini" ? VEO_PARAMS : VERTEX_PARAMS).includes(k)) return `Invalid JSON payload received. Unknown name "${k}" at 'parameters': Cannot find field.`;
  if (p.aspectRatio !== undefined && !["16:9", "9:16"].includes(p.aspectRatio)) return `Aspect ratio ${p.aspectRatio} is not supported.`;
  if (p.resolution !== undefined && !["720p", "1080p"].includes(p.resolution)) return `Resolution ${p.resolution} is not supported.`;
  if (p.durationSeconds !== undefined && ![4, 6, 8].includes(p.durationSeconds)) return "durationSeconds must be 4, 6 or 8.";
  if (p.resolution === "1080p" && p.durationSeconds !== 8) return "1080p is only available with durationSeconds 8.";
  if (dialect === "vertex" && /^veo-3/.test(model) && typeof p.generateAudio !== "boolean") return "generateAudio is required for Veo 3 models.";
  const imageOk = (img: any) =>
    dialect === "gemini"
      ? img && Object.keys(img).join() === "inlineData" && isB64(img.inlineData?.data) && /^image\//.test(img.inlineData?.mimeType)
      : img && img.inlineData === undefined && (isB64(img.bytesBase64Encoded) || /^gs:\/\//.test(img.gcsUri ?? "")) && /^image\//.test(img.mimeType);
  const i = inst[0];
  for (const k of Object.keys(i)) if (!["prompt", "image", "lastFrame", "referenceImages", "video"].includes(k)) return `Unknown name "${k}" at 'instances[0]'.`;
  if (i.image !== undefined && !imageOk(i.image)) return "instances[0].image: unsupported image encoding for this API.";
  if (i.lastFrame !== undefined && (!imageOk(i.lastFrame) || !i.image)) return "instances[0].lastFrame needs a valid image and a first frame.";
  if (i.referenceImages !== undefined) {
    if (!Array.isArray(i.referenceImages) || i.referenceImages.length > 3) return "At most 3 reference images.";
    for (const r of i.referenceImages) if (!imageOk(r.image) || r.referenceType !== "asset") return "referenceImages[]: an image and referenceType \"asset\" are required.";
  }
  return null;
}

function googleError(ctx: Ctx, code: number, message: string, status: string) {
  ctx.send(code, { error: { code, message, status } });
}

export async function startFakeGeminiVeo(opts: { apiKey?: string; stepsToComplete?: number } = {}): Promise<FakeVideoVendor & { apiKey: string }> {
  const apiKey = opts.apiKey ?? "AIza-fake-veo-key";
  const fake = await startVendor((req, url, body, ctx) => {
    const key = req.headers["x-goog-api-key"];
    ctx.record(key === apiKey);
    if (!key) return googleError(ctx, 403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", "PERMISSION_DENIED");
    if (key !== apiKey) return googleError(ctx, 400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT");
    let m: RegExpExecArray | null;
    if (req.method === "POST" && (m = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(url.pathname))) {
      const refusal = veoRefusal(body, m[1]!, "gemini");
      if (refusal) return googleError(ctx, 400, refusal, "INVALID_ARGUMENT");
      const job = newJob(ctx, "op", body.instances[0].prompt, body, body.parameters?.resolution ?? "720p", body.parameters?.durationSeconds ?? 8);
      return ctx.send(200, { name: `models/${m[1]}/operations/${job.id}` });
    }
    if (req.method === "GET" && (m = /^\/v1beta\/models\/([^/]+)\/operations\/([^/]+)$/.exec(url.pathname))) {
      const job = ctx.jobs.get(m[2]!);
      if (!job) return googleError(ctx, 404, "Operation not found.", "NOT_FOUND");
      const name = `models/${m[1]}/operations/${job.id}`;
      if (!advance(ctx, job)) return ctx.send(200, { name });
      if (job.prompt.includes("[fail]")) return ctx.send(200, { name, done: true, error: { code: 13, message: "Video generation failed due to an internal error." } });
      const kind = { "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse" };
      if (job.prompt.includes("[rai]"))
        return ctx.send(200, { name, done: true, response: { ...kind, generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ["The prompt could not be submitted."] } } });
      const uri = `${fake.baseUrl}/v1beta/files/${job.id}:download?alt=media`;
      return ctx.send(200, { name, done: true, response: { ...kind, generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } });
    }
    if (req.method === "GET" && (m = /^\/v1beta\/files\/([^/:]+):download$/.exec(url.pathname)) && url.searchParams.get("alt") === "media") {
      if (!ctx.jobs.has(m[1]!)) return googleError(ctx, 404, "File not found.", "NOT_FOUND");
      // Google answers the download with a redirect to its storage, on another origin.
      ctx.res.writeHead(302, { location: ctx.mediaUrl(m[1]!) }).end();
      return;
    }
    googleError(ctx, 404, `No route ${req.method} ${url.pathname}`, "NOT_FOUND");
  }, opts);
  return Object.assign(fake, { apiKey });
}

/** A fake Vertex AI (Veo) and its OAuth token endpoint; `serviceAccount` is the key file to configure. */
export async function startFakeVertexVeo(opts: { project: string; region: string; stepsToComplete?: number }): Promise<FakeVideoVendor & { serviceAccount: string; token: string }> {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const token = `ya29.fake-veo-${Math.random().toString(36).slice(2)}`;
  const email = `veo@${opts.project}.iam.gserviceaccount.com`;
  const prefix = `/v1/projects/${opts.project}/locations/${opts.region}/publishers/google/models/`;
  let tokenUrl = "";
  const fake = await startVendor((req, url, body, ctx) => {
    if (req.method === "POST" && url.pathname === "/token") {
      const form = new URLSearchParams(typeof body === "string" ? body : "");
      const [head, claimsPart, sig] = (form.get("assertion") ?? "").split(".");
      const signed = !!head && !!sig && createVerify("RSA-SHA256").update(`${head}.${claimsPart}`).verify(publicKey, Buffer.from(sig, "base64url"));
      const claims = signed ? JSON.parse(Buffer.from(claimsPart!, "base64url").toString("utf8")) : {};
      const ok = signed && form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer" && claims.iss === email && claims.aud === tokenUrl && claims.scope === "https://www.googleapis.com/auth/cloud-platform" && claims.exp > Date.now() / 1000;
      ctx.record(ok);
      return ok ? ctx.send(200, { access_token: token, expires_in: 3599, token_type: "Bearer" }) : ctx.send(400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    }
    const authorized = req.headers.authorization === `Bearer ${token}`;
    ctx.record(authorized);
    if (!authorized) return googleError(ctx, 401, "Request had invalid authentication credentials. Expected OAuth 2 access token.", "UNAUTHENTICATED");
    const m = url.pathname.startsWith(prefix) ? /^([^/:]+):(predictLongRunning|fetchPredictOperation)$/.exec(url.pathname.slice(prefix.length)) : null;
    if (req.method !== "POST" || !m) return googleError(ctx, 404, `No route ${req.method} ${url.pathname}`, "NOT_FOUND");
    const model = m[1]!;
    if (m[2] === "predictLongRunning") {
      const refusal = veoRefusal(body, model, "vertex");
      if (refusal) return googleError(ctx, 400, refusal, "INVALID_ARGUMENT");
      const job = newJob(ctx, "", body.instances[0].prompt, body, body.parameters?.resolution ?? "720p", body.parameters?.durationSeconds ?? 8);
      return ctx.send(200, { name: `projects/${opts.project}/locations/${opts.region}/publishers/google/models/${model}/operations/${job.id}` });
    }
    const opName = body?.operationName;
    const job = typeof opName === "string" && opName.startsWith(`projects/${opts.project}/locations/${opts.region}/publishers/google/models/${model}/operations/`) ? ctx.jobs.get(opName.split("/").at(-1)!) : undefined;
    if (!job) return googleError(ctx, 404, "Operation not found.", "NOT_FOUND");
    if (!advance(ctx, job)) return ctx.send(200, { name: opName });
    if (job.prompt.includes("[fail]")) return ctx.send(200, { name: opName, done: true, error: { code: 13, message: "Video generation failed." } });
    return ctx.send(200, {
      name: opName,
      done: true,
      response: { "@type": "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse", raiMediaFilteredCount: 0, videos: [{ bytesBase64Encoded: MP4.toString("base64"), mimeType: "video/mp4" }] },
    });
  }, opts);
  tokenUrl = `${fake.baseUrl}/token`;
  const serviceAccount = JSON.stringify({ type: "service_account", project_id: opts.project, private_key_id: "abc123", private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(), client_email: email, token_uri: tokenUrl });
  return Object.assign(fake, { serviceAccount, token });
}

// ---------------------------------------------------------------- Kling

/** Kling's answer to a bad token (its codes: 1001 empty, 1002 invalid, 1003 not yet valid, 1004 expired). */
function klingAuth(header: string | undefined, ak: string, sk: string): { code: number; message: string } | null {
  const token = header?.replace(/^Bearer /, "");
  if (!token) return { code: 1001, message: "Authorization is empty" };
  const [h, c, s] = token.split(".");
  if (!h || !c || !s || createHmac("sha256", sk).update(`${h}.${c}`).digest("base64url") !== s) return { code: 1002, message: "Authorization is invalid" };
  const head = JSON.parse(Buffer.from(h, "base64url").toString("utf8"));
  const claims = JSON.parse(Buffer.from(c, "base64url").toString("utf8"));
  const now = Date.now() / 1000;
  if (head.alg !== "HS256" || claims.iss !== ak) return { code: 1002, message: "Authorization is invalid" };
  if (typeof claims.nbf === "number" && claims.nbf > now) return { code: 1003, message: "Authorization is not yet valid" };
  if (typeof claims.exp !== "number" || claims.exp < now) return { code: 1004, message: "Authorization has expired" };
  return null;
}

export async function startFakeKling(opts: { accessKey?: string; secretKey?: string; stepsToComplete?: number } = {}): Promise<FakeVideoVendor & { accessKey: string; secretKey: string }> {
  const accessKey = opts.accessKey ?? "AK-fake-kling";
  const secretKey = opts.secretKey ?? "SK-fake-kling-secret";
  const reqId = () => `req-${Math.random().toString(36).slice(2)}`;
  const fake = await startVendor((req, url, body, ctx) => {
    const bad = klingAuth(req.headers.authorization, accessKey, secretKey);
    ctx.record(!bad);
    if (bad) return ctx.send(401, { ...bad, request_id: reqId() });
    const refuse = (message: string) => ctx.send(400, { code: 1201, message, request_id: reqId() });
    let m: RegExpExecArray | null;
    if (req.method === "POST" && (m = /^\/v1\/videos\/(text2video|image2video)$/.exec(url.pathname))) {
      const b = body ?? {};
      if (typeof b.model_name !== "string") return refuse("model_name is required");
      if (m[1] === "text2video" && (typeof b.prompt !== "string" || !b.prompt)) return refuse("prompt is required");
      if (b.mode !== undefined && !["std", "pro"].includes(b.mode)) return refuse("mode must be std or pro");
      if (b.duration !== undefined && !["5", "10"].includes(b.duration)) return refuse("duration must be \"5\" or \"10\"");
      if (b.aspect_ratio !== undefined && !["16:9", "9:16", "1:1"].includes(b.aspect_ratio)) return refuse("aspect_ratio is invalid");
      if (b.sound !== undefined && !["on", "off"].includes(b.sound)) return refuse("sound must be on or off");
      if (m[1] === "image2video") {
        if (typeof b.image !== "string" || !b.image) return refuse("image is required");
        for (const f of ["image", "image_tail"]) if (typeof b[f] === "string" && b[f].startsWith("data:")) return refuse(`${f}: Base64 must not carry a data: prefix`);
      } else if (b.image !== undefined || b.image_tail !== undefined) return refuse("image is not a parameter of text2video");
      const job = newJob(ctx, "8", b.prompt ?? "", { endpoint: m[1], ...b }, b.mode === "pro" ? "1080p" : "720p", b.prompt?.includes("[short]") ? 4 : Number(b.duration ?? 5));
      const now = Date.now();
      return ctx.send(200, { code: 0, message: "SUCCEED", request_id: reqId(), data: { task_id: job.id, task_status: "submitted", created_at: now, updated_at: now } });
    }
    if (req.method === "GET" && (m = /^\/v1\/videos\/(text2video|image2video)\/([A-Za-z0-9]+)$/.exec(url.pathname))) {
      const job = ctx.jobs.get(m[2]!);
      if (!job || job.body.endpoint !== m[1]) return ctx.send(404, { code: 1203, message: "task not found", request_id: reqId() });
      const base = { task_id: job.id, created_at: Date.now(), updated_at: Date.now() };
      if (!advance(ctx, job)) return ctx.send(200, { code: 0, message: "SUCCEED", request_id: reqId(), data: { ...base, task_status: job.polls === 1 ? "submitted" : "processing" } });
      if (job.prompt.includes("[fail]")) return ctx.send(200, { code: 0, message: "SUCCEED", request_id: reqId(), data: { ...base, task_status: "failed", task_status_msg: "Failure to pass the risk control system" } });
      return ctx.send(200, { code: 0, message: "SUCCEED", request_id: reqId(), data: { ...base, task_status: "succeed", task_status_msg: "", task_result: { videos: [{ id: `v${job.id}`, url: ctx.mediaUrl(job.id), duration: String(job.seconds) }] } } });
    }
    ctx.send(404, { code: 1200, message: "not found", request_id: reqId() });
  }, opts);
  return Object.assign(fake, { accessKey, secretKey });
}

// ---------------------------------------------------------------- Seedance (BytePlus ModelArk)

export async function startFakeSeedance(opts: { apiKey?: string; stepsToComplete?: number } = {}): Promise<FakeVideoVendor & { apiKey: string }> {
  const apiKey = opts.apiKey ?? "ark-fake-seedance-key";
  const fake = await startVendor((req, url, body, ctx) => {
    const authorized = req.headers.authorization === `Bearer ${apiKey}`;
    ctx.record(authorized);
    const err = (status: number, code: string, message: string, param?: string) => ctx.send(status, { error: { code, message, param: param ?? "", type: status === 401 ? "Unauthorized" : "BadRequest" } });
    if (!authorized) return err(401, "AuthenticationError", "The API key or AK/SK in the request is missing or invalid.");
    if (req.method === "POST" && url.pathname === "/api/v3/contents/generations/tasks") {
      const b = body ?? {};
      const allowed = ["model", "content", "callback_url", "return_last_frame", "ratio", "resolution", "duration", "frames", "seed", "camera_fixed", "watermark", "generate_audio", "service_tier", "execution_expires_after"];
      for (const k of Object.keys(b)) if (!allowed.includes(k)) return err(400, "InvalidParameter", `The parameter \`${k}\` specified in the request is not valid.`, k);
      if (typeof b.model !== "string") return err(400, "MissingParameter", "The request failed because it is missing one or multiple required parameters.", "model");
      if (!Array.isArray(b.content) || b.content[0]?.type !== "text") return err(400, "InvalidParameter", "content must start with the text prompt.", "content");
      for (const c of b.content.slice(1)) {
        if (c.type !== "image_url" || typeof c.image_url?.url !== "string" || !/^(https?:|data:image\/)/.test(c.image_url.url)) return err(400, "InvalidParameter", "content[].image_url.url must be a URL or a data URL.", "content");
        if (!["first_frame", "last_frame", "reference_image"].includes(c.role)) return err(400, "InvalidParameter", "content[].role is invalid.", "content");
      }
      if (b.ratio !== undefined && !["16:9", "4:3", "1:1", "3:4", "9:16", "21:9", "adaptive"].includes(b.ratio)) return err(400, "InvalidParameter", "ratio is invalid", "ratio");
      if (b.resolution !== undefined && !["480p", "720p", "1080p"].includes(b.resolution)) return err(400, "InvalidParameter", "resolution is invalid", "resolution");
      if (b.duration !== undefined && !(Number.isInteger(b.duration) && b.duration >= 2 && b.duration <= 12)) return err(400, "InvalidParameter", "duration must be an integer from 2 to 12", "duration");
      const prompt = b.content[0].text as string;
      const job = newJob(ctx, "cgt-", prompt, b, prompt.includes("[720p]") ? "720p" : (b.resolution ?? "720p"), prompt.includes("[short]") ? 4 : (b.duration ?? 5));
      return ctx.send(200, { id: job.id });
    }
    let m: RegExpExecArray | null;
    if (req.method === "GET" && (m = /^\/api\/v3\/contents\/generations\/tasks\/([A-Za-z0-9_-]+)$/.exec(url.pathname))) {
      const job = ctx.jobs.get(m[1]!);
      if (!job) return err(404, "ResourceNotFound", "The specified task is not found.");
      const now = Math.floor(Date.now() / 1000);
      const base = { id: job.id, model: job.body.model, created_at: now, updated_at: now };
      if (!advance(ctx, job)) return ctx.send(200, { ...base, status: job.polls === 1 ? "queued" : "running" });
      if (job.prompt.includes("[fail]")) return ctx.send(200, { ...base, status: "failed", error: { code: "OutputVideoSensitiveContentDetected", message: "The request failed because the output video may contain sensitive information." } });
      return ctx.send(200, {
        ...base,
        status: "succeeded",
        content: { video_url: ctx.mediaUrl(job.id) },
        usage: { completion_tokens: 108900, total_tokens: 108900 },
        seed: 42,
        resolution: job.resolution,
        ratio: job.body.ratio ?? "16:9",
        duration: job.seconds,
        framespersecond: 24,
      });
    }
    err(404, "NotFound", `No route ${req.method} ${url.pathname}`);
  }, { ...opts });
  return Object.assign(fake, { apiKey, baseUrl: `${fake.baseUrl}/api/v3` });
}
