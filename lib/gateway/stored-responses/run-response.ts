/**
 * One stateless Responses request through the text handler: shows the response object as the
 * client asked for it and keeps it (store.ts), for POST /v1/responses (create.ts) and for
 * background runs (background.ts).
 */
import type { DB } from "../../../db/client";
import type { StoredResponseStatus } from "../../../db/schema";
import type { GatewayResponse } from "../http";
import { responses } from "../protocols";
import { protocolId } from "../protocols/ids";
import { textCall } from "../routes/text-call";
import type { BillingPort, Settlement } from "../../billing/port";
import type { RouteContext } from "../types";
import type { Expanded } from "./history";
import { queueStoredResponse, type Item, type NewStoredResponse } from "./store";

const TERMINAL = new Set(["completed", "incomplete", "failed", "cancelled"]);

export interface RunInput {
  db: DB;
  ctx: RouteContext;
  path: string;
  /** The stateless body (history expanded, previous_response_id and background removed). */
  body: Record<string, unknown>;
  bodyBytes: number;
  expanded: Expanded | null;
  previousId: string | null;
  store: boolean;
  /** Whether the log row counts replayed items (the request replayed some). */
  replayedCounted: boolean;
  signal: AbortSignal;
  /** Background runs: the id the client was given, shown in every event; the stored write is theirs. */
  id?: string;
  /** Background runs keep the terminal response themselves; the upstream is known once the stream has ended. */
  onTerminal?: (response: Record<string, unknown>, upstreamId: () => string | null) => void;
  /** Background runs: what was charged (a cancelled run shows it, having no terminal response). */
  onSettled?: (s: Settlement) => void;
}

/** Runs one stateless Responses request through the text handler, shows and keeps what came back. */
export async function runResponse(r: RunInput): Promise<GatewayResponse> {
  const { db, ctx, path, body, bodyBytes, expanded, previousId, store } = r;
  let upstreamId: string | null = null;
  let settledNow!: () => void;
  const settled = new Promise<void>((r) => (settledNow = r));
  const wrapBilling = (base: BillingPort): BillingPort => ({
    reserve: (a, o) => base.reserve(a, o),
    settle: (hold, s, o) => {
      if (s.log.upstreamId) upstreamId = s.log.upstreamId;
      r.onSettled?.(s);
      settledNow();
      if (expanded && r.replayedCounted) s.log.replayedItems = expanded.replayed;
      return base.settle(hold, s, o);
    },
  });
  const res = await textCall(ctx, db, path, { protocol: responses, body, bodyBytes, signal: r.signal, wrapBilling, requestBody: () => JSON.stringify(body) });
  if (res.status !== 200) return res;

  // Our own id always: an upstream's (passthrough) could collide with another account's.
  const shown: Record<string, unknown> = { id: r.id ?? protocolId.response(), previous_response_id: previousId, store };
  if (r.id) shown.background = true;
  const keep = (response: Record<string, unknown>) => {
    if (r.onTerminal) return r.onTerminal(response, () => upstreamId);
    if (!store || !expanded || !TERMINAL.has(response.status as string)) return;
    const output = (response.output as Item[] | undefined) ?? [];
    const record: NewStoredResponse = {
      id: response.id as string,
      accountId: ctx.principal.accountId,
      keyId: ctx.principal.keyId,
      status: response.status as StoredResponseStatus,
      model: String(response.model ?? ""),
      upstreamId,
      response,
      input: expanded.storedInput,
      itemIds: [...expanded.ownItemIds, ...output.map((o) => o.id).filter((i): i is string => typeof i === "string")],
    };
    // A stream's terminal event goes out before its settlement names the upstream that served it.
    const ready = settled.then(() => void (record.upstreamId = upstreamId));
    queueStoredResponse(db, record, ready);
  };

  if (typeof res.body === "string") {
    const response = JSON.parse(res.body) as Record<string, unknown>;
    Object.assign(response, shown);
    keep(response);
    return { ...res, body: JSON.stringify(response) };
  }
  if (res.body && typeof res.body === "object" && Symbol.asyncIterator in res.body) {
    const inner = res.body as AsyncIterable<string | Uint8Array>;
    return { ...res, body: rewriteStream(inner, shown, keep, settledNow) };
  }
  return res;
}

/** Shows `store`/`previous_response_id` in every event that carries the response; keeps the terminal one. */
async function* rewriteStream(
  inner: AsyncIterable<string | Uint8Array>,
  shown: Record<string, unknown>,
  keep: (response: Record<string, unknown>) => void,
  ended: () => void,
): AsyncGenerator<string | Uint8Array> {
  try {
    yield* rewrite(inner, shown, keep);
  } finally {
    ended(); // the text handler has settled by now (or never will): a queued write must not wait forever
  }
}

async function* rewrite(inner: AsyncIterable<string | Uint8Array>, shown: Record<string, unknown>, keep: (response: Record<string, unknown>) => void): AsyncGenerator<string | Uint8Array> {
  for await (const chunk of inner) {
    if (typeof chunk !== "string" || !chunk.includes('"response":{')) {
      yield chunk;
      continue;
    }
    const at = chunk.indexOf("data: ");
    const end = chunk.indexOf("\n", at);
    type Ev = { type?: string; response?: Record<string, unknown> };
    let ev: Ev | null = null;
    try {
      ev = at >= 0 ? (JSON.parse(chunk.slice(at + 6, end < 0 ? undefined : end)) as Ev) : null;
    } catch {
      ev = null;
    }
    if (!ev?.response || typeof ev.type !== "string" || !ev.type.startsWith("response.")) {
      yield chunk;
      continue;
    }
    Object.assign(ev.response, shown);
    if (TERMINAL.has(ev.response.status as string)) keep(ev.response);
    yield `${chunk.slice(0, at)}data: ${JSON.stringify(ev)}\n\n`;
  }
}
