/**
 * `POST /v1/videos`: parse (JSON or multipart), resolve the model, apply the family rules and
 * the webhook address rules, take the price (402 before anything else happens), create the
 * task and hand it to the upstream, failing over on errors that may heal. The answer is the
 * Video object with status `queued`; the worker takes it from there.
 *
 * If this process dies after the task row commits, the task is not lost: its short lease runs
 * out and a worker submits it upstream (lib/tasks/task-runner.ts).
 */
import { getDb } from "../../../db/client";
import { formatUsd } from "../../billing/money";
import { env } from "../../env";
import { resolveModel } from "../catalog";
import { errors, type ApiError } from "../errors";
import { header, json, type GatewayResponse } from "../http";
import { refusalError } from "../billing";
import { abandonIdempotent, beginIdempotent, completeIdempotent } from "../idempotency";
import type { RouteContext } from "../types";
import { checkWebhookUrl } from "../../tasks/ssrf";
import { createVideoTask, failTask, recordUpstreamAccepted } from "../../tasks/task-lifecycle";
import { renderVideo } from "../../tasks/task-render";
import { tokenAdmission, type Admission } from "../token-limits";
import { failover, NO_RETRY } from "../upstreams/failover";
import { videoUpstreamFor } from "../upstreams/video-upstream";
import { logVideoRequest, logVideoSubmitted } from "./video-request-log";
import { holdMicroUsd } from "../../billing/video-price";
import { parseSubmission } from "./video-submission";
import { checkCommonFields, heldSeconds, validateSubmission } from "./video-validate";
import { webhookPolicy } from "../../tasks/webhook-policy";

const ROUTE = "/v1/videos";
/** The submitting request keeps its new task to itself this long while it calls the upstream. */
const SUBMIT_LEASE_MS = 2 * 60_000;

export async function handleVideoSubmit(ctx: RouteContext): Promise<GatewayResponse> {
  // A key's or organisation's token and concurrency admission, freed however the submission ends.
  const slot: Slot = { used: 0 };
  try {
    return await submit(ctx, slot);
  } finally {
    slot.admission?.release(slot.used);
  }
}

interface Slot {
  admission?: Admission;
  /** Tokens to keep counted: the prompt's byte bound once a task was accepted, else none. */
  used: number;
}

async function submit(ctx: RouteContext, slot: Slot): Promise<GatewayResponse> {
  const db = await getDb();
  const reject = async (err: ApiError, model: string | null = null): Promise<GatewayResponse> => {
    await logVideoRequest(db, ctx, { route: ROUTE, model, status: err.status, errorCode: err.code, settlement: err.status === 402 ? "rejected" : "invalid" });
    return ctx.error(err);
  };

  const raw = await ctx.readBody();
  if (!raw.ok) return reject(raw.error);
  const parsed = await parseSubmission(raw.value, header(ctx.req, "content-type"));
  if (!parsed.ok) return reject(parsed.error);
  const common = checkCommonFields(parsed.value);
  if (!common.ok) return reject(common.error);
  const resolved = await resolveModel(ctx.principal, common.model, ["video"]);
  if (!resolved.ok) return reject(resolved.error, common.model);
  const routes = resolved.routes;
  const primary = routes[0]!;
  const valid = validateSubmission(parsed.value, primary.family);
  if (!valid.ok) return reject(valid.error, common.model);
  const { job, webhook, webhookSecret } = valid.value;
  if (webhook) {
    const verdict = await checkWebhookUrl(webhook, webhookPolicy().policy);
    if (!verdict.ok) return reject(errors.invalidRequest(`\`webhook\` is not allowed: the URL ${verdict.reason}.`, "webhook"), common.model);
  }

  const idem = await beginIdempotent(db, { accountId: ctx.principal.accountId, route: ROUTE, key: header(ctx.req, "idempotency-key"), body: raw.value });
  if (idem.kind === "error") return reject(idem.error, common.model);
  if (idem.kind === "replay") return idem.response;
  const claim = idem.kind === "claimed" ? idem.claim : null;
  const giveUp = async (err: ApiError) => {
    if (claim) await abandonIdempotent(db, claim);
    return reject(err, common.model);
  };

  const admit = tokenAdmission(ctx.principal);
  const promptTokens = Buffer.byteLength(job.prompt, "utf8");
  const admitted = admit ? await admit(promptTokens) : null;
  if (admitted && !admitted.ok) return giveUp(admitted.error);
  slot.admission = admitted?.admission;

  const e = env();
  const amount = holdMicroUsd(primary.price, heldSeconds(job));
  const created = await createVideoTask(db, {
    accountId: ctx.principal.accountId,
    keyId: ctx.principal.keyId,
    userId: ctx.principal.userId,
    source: ctx.principal.source,
    model: primary.modelId,
    modelRowId: primary.rowId,
    upstreamId: primary.upstream.id,
    upstreamModel: primary.upstreamModel,
    family: primary.family,
    job,
    webhookUrl: webhook,
    webhookSecret,
    holdMicroUsd: amount,
    price: primary.price,
    requestId: ctx.requestId,
    timeoutS: e.TASK_TIMEOUT_S,
    leaseMs: SUBMIT_LEASE_MS,
  });
  if (!created.ok) return giveUp(refusalError(created));
  const task = created.task;

  const submitted = await failover(
    routes.filter((r) => videoUpstreamFor(r.upstream.protocol)),
    async (route) => {
      const upstream = videoUpstreamFor(route.upstream.protocol)!;
      const r = await upstream.create(route, job);
      return r.ok ? { ok: true as const, value: { video: r.value, pollIntervalMs: upstream.pollIntervalMs } } : r;
    },
    NO_RETRY,
  );
  if (submitted.ok) {
    const route = submitted.route!;
    const interval = submitted.value.pollIntervalMs ?? e.TASK_POLL_INTERVAL_MS;
    const accepted = await recordUpstreamAccepted(db, task.id, {
      upstreamId: route.upstream.id,
      modelRowId: route.rowId,
      upstreamModel: route.upstreamModel,
      upstreamTaskId: submitted.value.video.id,
      nextPollAt: new Date(Date.now() + interval),
    });
    const body = JSON.stringify(renderVideo(accepted ?? task));
    await logVideoSubmitted(db, ctx, task.id, {
      route: ROUTE,
      model: primary.modelId,
      upstreamId: route.upstream.id,
      upstreamProtocol: route.upstream.protocol,
      status: 200,
      costMicroUsd: amount,
      settlement: "task_submitted",
      price: primary.price,
    });
    if (claim) await completeIdempotent(db, claim, 200, body);
    slot.used = promptTokens;
    const res = json(200, null, {
      ...slot.admission?.headers,
      "x-gateway-cost-usd": formatUsd(amount),
      ...(created.balanceAfterMicroUsd !== null ? { "x-gateway-balance-usd": formatUsd(created.balanceAfterMicroUsd) } : {}),
    });
    return { ...res, body };
  }
  const lastError = submitted.error;
  // Nothing reached an upstream: the task ends failed and the charge comes straight back.
  await failTask(db, task.id, lastError.message, { publicBaseUrl: e.publicBaseUrl, notify: false });
  if (claim) await abandonIdempotent(db, claim);
  await logVideoRequest(db, ctx, {
    route: ROUTE,
    model: primary.modelId,
    upstreamId: primary.upstream.id,
    upstreamProtocol: primary.upstream.protocol,
    status: lastError.status,
    errorCode: lastError.code,
    settlement: "upstream_error",
    price: primary.price,
  });
  return ctx.error(lastError);
}
