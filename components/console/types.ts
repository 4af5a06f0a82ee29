/** Shapes of the console JSON routes as the browser receives them (dates are ISO strings). */
// Server view types, shared with the server modules as type-only imports (erased from the
// browser bundle), so the two sides cannot drift.
import type { KeyView } from "@/lib/console/keys";
import type { RequestView } from "@/lib/console/usage";

import type { ModelPrice } from "@/db/schema";

export type { KeyView };
export type RequestRow = RequestView;

export interface Page<Row, Cursor> {
  items: Row[];
  nextCursor: Cursor | null;
}

export interface SessionUserView {
  id: string;
  accountId: string;
  email: string;
  name: string | null;
  role: "user" | "admin";
}

export interface Balance {
  balanceMicroUsd: number;
  heldMicroUsd: number;
  disabled: boolean;
}

export interface Me {
  user: SessionUserView;
  account: Balance;
  publicBaseUrl: string;
}


export interface Totals {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  /** Usage page totals only (the overview's 30-day totals leave them out). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  cacheSavedMicroUsd?: number;
  costMicroUsd: number;
}

export interface DailySpend {
  day: string;
  model: string;
  costMicroUsd: number;
  requests: number;
  /** What prompt caching saved (cache reads × (input − cache-read price)). */
  savedMicroUsd?: number;
}

export interface Overview extends Balance {
  last30d: Totals;
  recent: RequestRow[];
  daily: DailySpend[];
  activeKeys: number;
}

export interface AvailableModel {
  id: string;
  kind: "text" | "embedding" | "image" | "video";
  ownedBy: string;
  price: ModelPrice;
}


export interface CreateKeyBody {
  name: string;
  allowedModels: string[];
  limitUsd?: string;
  rpm?: string | number;
  expiresAt?: string;
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  last4: string;
}

export interface LedgerRow {
  id: number;
  createdAt: string;
  kind: string;
  deltaMicroUsd: number;
  balanceAfterMicroUsd: number;
  requestId: string | null;
  taskId: string | null;
  keyId: string | null;
  note: string | null;
}

export interface UsageFilters {
  keyId?: string;
  requestId?: string;
  source?: string;
  model?: string;
  status?: string;
  from?: string;
  to?: string;
}

export interface UsagePage extends Page<RequestRow, number> {
  totals: Totals | null;
}

export interface TaskRow {
  id: string;
  model: string;
  status: "queued" | "in_progress" | "completed" | "failed";
  progress: number;
  seconds: string | null;
  size: string | null;
  source: string;
  keyId: string | null;
  costMicroUsd: number;
  errorMessage: string | null;
  createdAt: string;
  completedAt: string | null;
  expiresAt: string | null;
}

export interface Billing extends Balance {
  stripeEnabled: boolean;
  minCents: number;
  maxCents: number;
  presetsCents: number[];
}

export interface ResponsesStorage {
  storeResponses: boolean;
  responsesRetentionDays: number;
}

export interface CheckoutStatus extends Balance {
  state: "paid" | "pending" | "failed";
  amountMicroUsd: number | null;
}

export interface AdminUser {
  id: string;
  email: string;
  name: string | null;
  role: "user" | "admin";
  disabled: boolean;
  createdAt: string;
  accountId: string;
  balanceMicroUsd: number;
  heldMicroUsd: number;
  keys: number;
}

export interface AdminUpstream {
  id: string;
  protocol: "openai" | "openai-responses" | "anthropic" | "gemini" | "openai-video" | "demo";
  baseUrl: string;
  hasApiKey: boolean;
  timeoutMs: number | null;
  enabled: boolean;
  source: "config" | "console" | "demo";
  createdAt: string;
  updatedAt: string;
}

export interface AdminModel {
  id: string;
  modelId: string;
  upstreamId: string;
  upstreamModel: string;
  kind: "text" | "embedding" | "image" | "video";
  family: string | null;
  ownedBy: string;
  price: ModelPrice;
  defaultMaxTokens: number | null;
  contextWindow: number | null;
  inputModalities: string[] | null;
  strict?: boolean;
  priority: number;
  enabled: boolean;
  source: "config" | "console" | "demo";
}

export interface AuditRow {
  id: number;
  actorUserId: string | null;
  actor: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  /** The target's email (user) or name (key), when it still exists. */
  targetName: string | null;
  details: Record<string, unknown> | null;
  createdAt: string;
}

export interface AuditFilters {
  actor?: string;
  action?: string;
  target?: string;
}

export interface WebhookAttempt {
  attemptNo: number;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  at: string;
}

export interface WebhookDelivery {
  id: string;
  taskId: string;
  url: string;
  eventStatus: string;
  isTest: boolean;
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  attemptLog: WebhookAttempt[];
}

export interface TestEventResult {
  delivery: WebhookDelivery;
  outcome: { result: "delivered" | "retry" | "stop"; statusCode: number | null; error: string | null; latencyMs: number };
}
