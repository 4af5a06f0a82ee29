/**
 * `POST /v1/videos`: parse (JSON or multipart), resolve the model, apply the family rules and
 * the webhook address rules, then the pipeline's steps (lib/gateway/pipeline.ts): the
 * Idempotency-Key claim, the admission (token and concurrency limits, then the money), failover
 * over the healthy entries. The money of a task is its own (docs/decisions/video-task-billing.md):
 * the price is charged in the transaction that creates the task row and refunded exactly once if
 * the task fails, because a task outlives any hold. The answer is the Video object with status
 * `queued`; the worker takes it from there.
 *
 * If this process dies after the task row commits, the task is not lost: its short lease runs
 * out and a worker submits it upstream (lib/tasks/task-runner.ts).
 */
import { getDb, type DB } from "../../../db/client";
import { formatUsd } from "../../billing/money";
import { holdMicroUsd, videoPriceProblem } from "../../billing/video-price";
import { env } from "../../env";
import { checkWebhookUrl } from "../../tasks/ssrf";
import { createVideoTask, failTask, recordUpstreamAccepted, type CreateTaskResult } from "../../tasks/task-lifecycle";
import { renderVideo } from "../../tasks/task-render";
import { webhookPolicy } from "../../tasks/webhook-policy";
import type { RequestLogFields, Reservation } from "../../billing/port";
import { resolveModel } from "../catalog";
import { errors, type ApiError, type RequestRefusal } from "../errors";
import { health, routeFor } from "../health";
import { header, json, type GatewayResponse } from "../http";
import { idempotencyClaim } from "../idempotency";
import type { ModelRoute } from "../model-route";
import { admit } from "../pipeline";
import { tokenAdmission } from "../token-limits";
import type { RouteContext } from "../types";
import { failover, failoverOptions, NO_RETRY } from "../upstreams/failover";
import { videoUpstreamFor } from "../upstreams/video-upstream";
import { holdSpan, settleSpan } from "../trace-billing";
import { logVideoRequest, logVideoSubmitted, VIDEO_ROUTE as ROUTE } from "./video-request-log";
import { parseSubmission } from "./video-submission";
import { checkCommonFields, heldSeconds, validateSubmission, type ValidSubmission } from "./video-validate";
import type { Ok, Result } from "../../result";
import { wakeWorkers } from "../../tasks/wake";

/** The submitting request keeps its new task to itself this long while it calls the upstream. */
const SUBMIT_LEASE_MS = 2 * 60_000;

type Submission = ValidSubmission & { model: string; routes: ModelRoute[] };
type Task = Extract<CreateTaskResult, { ok: true }>;

export async function handleVideoSubmit(ctx: RouteContext): Promise<GatewayResponse> {
  const db = await getDb();
  const reject = async (err: ApiError, model: string | null): Promise<GatewayResponse> => {
    const log: RequestLogFields = { model, status: err.status, errorCode: err.code, settlement: err.status === 402 ? "rejected" : "invalid" };
    await traceSettle(ctx, log, 0, () => logVideoRequest(db, ctx, log));
    return ctx.error(err);
  };
  const checked = await checkSubmission(ctx);
  if (!checked.ok) return reject(checked.error, checked.model);
  const sub = checked.value;

  const claim = await idempotencyClaim(ctx, db, ROUTE);
  if (claim.kind === "error") return reject(claim.error, sub.model);
  if (claim.kind === "answer") return claim.response;
  try {
    // The worst case of the request: its duration at the resolution and sound it asks for (or the vendor's default).
    const amount = holdMicroUsd(sub.routes[0]!.price, heldSeconds(sub.job), sub.job);
    // The prompt's byte bound is what a key's token limit counts (a video reports no tokens).
    const promptTokens = Buffer.byteLength(sub.job.prompt, "utf8");
    const admission = await admit({ tokens: promptTokens, admitTokens: tokenAdmission(ctx.principal), reserve: () => createTask(db, ctx, sub, amount) });
    if (!admission.ok) {
      await claim.abandon();
      return reject(admission.error, sub.model);
    }
    const admitted = admission.value;
    let res: GatewayResponse | null = null;
    try {
      res = await sendToUpstream(db, ctx, sub, admitted.hold, amount, admitted.headers);
    } finally {
      admitted.release(res?.status === 200 ? promptTokens : 0);
    }
    await claim.done(res);
    return res;
  } catch (err) {
    // Whatever went wrong, the Idempotency-Key must not stay "in progress" for a day.
    await claim.abandon().catch(() => {});
    throw err;
  }
}

/** Everything that can be refused before any money moves (400s and 404s). */
async function checkSubmission(ctx: RouteContext): Promise<Ok<Submission> | RequestRefusal> {
  const raw = await ctx.readBody();
  if (!raw.ok) return { ok: false, error: raw.error, model: null };
  const parsed = await parseSubmission(raw.value, header(ctx.req, "content-type"));
  if (!parsed.ok) return { ok: false, error: parsed.error, model: null };
  const common = checkCommonFields(parsed.value);
  if (!common.ok) return { ok: false, error: common.error, model: null };
  const model = common.value;
  const resolved = await resolveModel(ctx.principal, model, ["video"], ctx.observe);
  if (!resolved.ok) return { ok: false, error: resolved.error, model };
  const valid = validateSubmission(parsed.value, resolved.value.routes[0]!.family);
  if (!valid.ok) return { ok: false, error: valid.error, model };
  const prepared = prepareForVendors(resolved.value.routes, valid.value.job);
  if (!prepared.ok) return { ok: false, error: prepared.error, model };
  const priceProblem = videoPriceProblem(prepared.value.routes[0]!.price, prepared.value.job);
  if (priceProblem) return { ok: false, error: errors.invalidRequest(priceProblem.message, priceProblem.param), model };
  if (valid.value.webhook) {
    const verdict = await checkWebhookUrl(valid.value.webhook, webhookPolicy().policy);
    if (!verdict.ok) return { ok: false, error: errors.invalidRequest(`\`webhook\` is not allowed: the URL ${verdict.error}.`, "webhook"), model };
  }
  return { ok: true, value: { ...valid.value, job: prepared.value.job, model, routes: prepared.value.routes } };
}

/**
 * The vendors' own rules (VideoUpstream.prepare): the entries whose vendor can honour the job,
 * and the job with the first one's defaults filled in (the resolution it renders when none is
 * asked, which the hold prices). When none can, the first entry's refusal is the 400.
 */
function prepareForVendors(routes: ModelRoute[], job: ValidSubmission["job"]): Result<{ routes: ModelRoute[]; job: ValidSubmission["job"] }, ApiError> {
  let refusal: ApiError | null = null;
  let first: ValidSubmission["job"] | null = null;
  const usable: ModelRoute[] = [];
  for (const route of routes) {
    const r = videoUpstreamFor(route.upstream.protocol)?.prepare?.(route, job) ?? { ok: true as const, value: job };
    if (!r.ok) {
      refusal ??= errors.invalidRequest(r.error.message, r.error.param);
      continue;
    }
    first ??= r.value;
    usable.push(route);
  }
  return first ? { ok: true, value: { routes: usable, job: first } } : { ok: false, error: refusal ?? errors.invalidRequest("No upstream of this model can take the request.") };
}

/** The task row and its charge, in one transaction (a short balance is the 402). */
async function createTask(db: DB, ctx: RouteContext, sub: Submission, amount: number): Promise<Reservation<Task>> {
  const primary = sub.routes[0]!;
  const p = ctx.principal;
  // The task's charge is its hold: the trace's `gateway.hold` span, as the billing port's reserve.
  const created = await holdSpan(amount, () => createVideoTask(db, {
    accountId: p.accountId,
    keyId: p.keyId,
    userId: p.userId,
    source: p.source,
    model: primary.modelId,
    modelRowId: primary.rowId,
    upstreamId: primary.upstream.id,
    upstreamModel: primary.upstreamModel,
    family: primary.family,
    job: sub.job,
    webhookUrl: sub.webhook,
    webhookSecret: sub.webhookSecret,
    holdMicroUsd: amount,
    price: primary.price,
    requestId: ctx.requestId,
    timeoutS: env().TASK_TIMEOUT_S,
    leaseMs: SUBMIT_LEASE_MS,
  }), (c) => (c.ok ? "held" : c.reason));
  return created.ok ? { ok: true, hold: created } : created;
}

/** Hands the task to the first healthy entry that accepts it; if none does, the task fails and its charge comes back. */
async function sendToUpstream(db: DB, ctx: RouteContext, sub: Submission, created: Task, amount: number, limitHeaders: Record<string, string>): Promise<GatewayResponse> {
  const { task } = created;
  const e = env();
  const primary = sub.routes[0]!;
  const routePlan = routeFor<ModelRoute>(health(), { caller: ctx.principal.accountId });
  const submitted = await failover(
    sub.routes.filter((r) => videoUpstreamFor(r.upstream.protocol)),
    async (route) => {
      const upstream = videoUpstreamFor(route.upstream.protocol)!;
      const r = await upstream.create(route, sub.job);
      return r.ok ? { ok: true as const, value: { video: r.value, pollIntervalMs: upstream.pollIntervalMs } } : r;
    },
    failoverOptions(NO_RETRY, routePlan.hooks),
  );
  const route = submitted.route ?? primary;
  const served = primary.modelId !== sub.model ? primary.modelId : null;
  const log = { model: sub.model, servedModel: served, upstreamId: route.upstream.id, upstreamProtocol: route.upstream.protocol, upstreamModel: route.upstreamModel, priceSnapshot: primary.price, routeTrace: routePlan.trace() };
  if (!submitted.ok) {
    // Nothing reached an upstream: the task ends failed and the charge comes straight back.
    await failTask(db, task.id, submitted.error.message, { publicBaseUrl: e.publicBaseUrl, notify: false });
    const failed: RequestLogFields = Object.assign(log, { status: submitted.error.status, errorCode: submitted.error.code, settlement: "upstream_error" });
    await traceSettle(ctx, failed, 0, () => logVideoRequest(db, ctx, failed));
    return ctx.error(submitted.error);
  }
  const accepted = await recordUpstreamAccepted(db, task.id, {
    upstreamId: route.upstream.id,
    modelRowId: route.rowId,
    upstreamModel: route.upstreamModel,
    upstreamTaskId: submitted.value.video.id,
    nextPollAt: new Date(Date.now() + (submitted.value.pollIntervalMs ?? e.TASK_POLL_INTERVAL_MS)),
  });
  wakeWorkers(); // an idle worker sleeps until its next due job: this one now counts
  const done: RequestLogFields = Object.assign(log, { status: 200, settlement: "task_submitted" });
  await traceSettle(ctx, done, amount, () => logVideoSubmitted(db, ctx, task.id, done, amount));
  const headers: Record<string, string> = { ...limitHeaders, "x-gateway-cost-usd": formatUsd(amount) };
  if (created.balanceAfterMicroUsd !== null) headers["x-gateway-balance-usd"] = formatUsd(created.balanceAfterMicroUsd);
  return { ...json(200, null, headers), body: JSON.stringify(renderVideo(accepted ?? task)) };
}

/**
 * A log row of this route inside the trace's settlement span — the task's charge is not a
 * billing port's, so it takes the port decorator's helpers (trace-billing.ts) directly.
 */
function traceSettle(ctx: RouteContext, log: RequestLogFields, costMicroUsd: number, write: () => Promise<number | void>): Promise<unknown> {
  return settleSpan(ctx.observe.span, "video", log, costMicroUsd, async () => ({ chargedMicroUsd: (await write()) ?? 0 }));
}
