/**
 * The exact response cache (docs/guardrails.md, decision 0057): an answer stored under a
 * hash of the organisation, the client protocol, the model, the stream flag, the guardrail
 * policy and the request itself, served again for $0 until its TTL. Built only for a request
 * that asks (`x-gateway-cache: on`) or whose key has it on; otherwise the text path builds nothing.
 */
import { createHash } from "node:crypto";
import { afterReply } from "../../after-reply";
import { formatUsd } from "../../billing/money";
import { logger } from "../../logger";
import type { CanonicalRequest } from "../canonical";
import type { GatewayResponse } from "../http";
import { SSE_HEADERS } from "../sse";
import type { ClientHeaders } from "../upstreams/text-types";
import type { DB } from "../../../db/client";
import { cacheStore, type CacheStore } from "./store";

export const CACHE_HEADER = "x-gateway-cache";
export const SAVED_HEADER = "x-gateway-saved-usd";
/** Seconds an answer stored by this request is kept (default DEFAULT_TTL_S, at most MAX_TTL_S). */
export const CACHE_TTL_HEADER = "x-gateway-cache-ttl";
export const DEFAULT_TTL_S = 3600;
export const MAX_TTL_S = 7 * 86_400;

/** What a request's cache may do: set by textCall only when the request or its key asks. */
export interface CacheScope {
  store: CacheStore;
  accountId: string;
  /** temperature > 0 (or left to the model's default) is cached too: only when the key says `all`. */
  nonDeterministic: boolean;
  ttlS: number;
}

export interface CachedAnswer {
  accountId: string;
  stream: boolean;
  contentType: string;
  body?: string;
  events?: string[];
  /** What the answer cost when it was made: a hit's saving. */
  costMicroUsd: number;
  servedModel: string;
}

/**
 * A hit is free, so what it replays says so: the cost we rendered into the first answer's usage
 * (`cost_usd`, Gemini's `costUsd`) is stored as 0; the saving goes in a header instead.
 */
function freeOfCharge(json: string): string {
  if (!json.includes('"cost_usd"') && !json.includes('"costUsd"')) return json;
  return JSON.stringify(
    JSON.parse(json, (k, v: unknown) => {
      if ((k === "usage" || k === "usageMetadata") && v && typeof v === "object") {
        const u = v as Record<string, unknown>;
        if ("cost_usd" in u) u.cost_usd = 0;
        if ("costUsd" in u) u.costUsd = 0;
      }
      return v;
    }),
  );
}

/** One SSE frame: its `data:` lines made free of charge. */
function freeEvent(frame: string): string {
  return frame.replace(/^data: (\{.*)$/gm, (_, json: string) => `data: ${freeOfCharge(json)}`);
}

/** The request's or the key's wish, or null (the common case: one header read and one field). */
export function cacheScopeFor(headers: ClientHeaders | undefined, keySetting: "on" | "all" | null | undefined, accountId: string, db: DB): CacheScope | null {
  const asked = headers?.[CACHE_HEADER];
  if (!keySetting && asked !== "on") return null;
  if (asked === "off") return null;
  const ttl = Number(headers?.[CACHE_TTL_HEADER]);
  const ttlS = Number.isInteger(ttl) && ttl > 0 ? Math.min(ttl, MAX_TTL_S) : DEFAULT_TTL_S;
  return { store: cacheStore(db), accountId, nonDeterministic: keySetting === "all", ttlS };
}

/** A request's cache state: its key, whether it was looked up (`miss`) or is not cacheable (`bypass`). */
export class CacheTicket {
  constructor(
    private readonly scope: CacheScope,
    readonly key: string,
    readonly state: "miss" | "bypass",
  ) {}

  /** Stores a completed answer after the reply (never delays it; a failed write is only logged). */
  keep(answer: Omit<CachedAnswer, "accountId">): void {
    if (this.state !== "miss") return;
    const free = { ...answer, body: answer.body && freeOfCharge(answer.body), events: answer.events?.map(freeEvent) };
    const value = JSON.stringify({ ...free, accountId: this.scope.accountId });
    afterReply(this.scope.store.put(this.key, this.scope.accountId, value, this.scope.ttlS).catch((err) => logger().warn({ err }, "response cache write failed")));
  }
}

export type Lookup = { hit: CachedAnswer; ticket: CacheTicket } | { hit: null; ticket: CacheTicket };

/** The cache key: a SHA-256 of everything that decides the answer (keys sorted, so field order does not matter). */
export function cacheKey(accountId: string, protocol: string, req: CanonicalRequest, body: unknown, policy: string): string {
  return createHash("sha256").update(JSON.stringify([accountId, protocol, req.model, req.stream, policy, sorted(body)])).digest("hex");
}

export async function lookup(scope: CacheScope, protocol: string, req: CanonicalRequest, body: unknown, policy: string): Promise<Lookup> {
  const key = cacheKey(scope.accountId, protocol, req, body, policy);
  if (req.temperature !== 0 && !scope.nonDeterministic) return { hit: null, ticket: new CacheTicket(scope, key, "bypass") };
  const raw = await scope.store.get(key, scope.accountId);
  const entry = raw ? (JSON.parse(raw) as CachedAnswer) : null;
  // The organisation is in the key; checked again, so a hash collision or a shared Redis never crosses it.
  if (entry && entry.accountId === scope.accountId && entry.stream === req.stream) return { hit: entry, ticket: new CacheTicket(scope, key, "miss") };
  return { hit: null, ticket: new CacheTicket(scope, key, "miss") };
}

/** A hit, replayed: the same body or the same events, at $0. */
export function replay(entry: CachedAnswer, headers: Record<string, string>): GatewayResponse {
  Object.assign(headers, { [CACHE_HEADER]: "hit", [SAVED_HEADER]: formatUsd(entry.costMicroUsd), "x-gateway-cost-usd": formatUsd(0), "x-gateway-model": entry.servedModel });
  if (!entry.stream) return { status: 200, headers: Object.assign({ "content-type": entry.contentType }, headers), body: entry.body ?? "" };
  return { status: 200, headers: Object.assign({}, SSE_HEADERS, headers), body: events(entry.events ?? []) };
}

async function* events(list: string[]): AsyncGenerator<string> {
  for (const e of list) yield e;
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
  return v;
}
