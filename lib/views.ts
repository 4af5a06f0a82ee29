/**
 * The views the console's JSON routes return, as the server builds them: type declarations only,
 * importing nothing but the column vocabulary (lib/values.ts), so the browser (components/) can
 * share them without reaching a server module. The server functions are declared to return these
 * types, so the compiler checks that both sides agree; the browser reads them through `Wire<T>`
 * (lib/console/wire.ts: Dates arrive as ISO strings).
 */
import type { AutoTopupState, BatchStatus, BudgetPeriod, BudgetScope, ContentLogMode, InputModality, ModelKind, ModelPrice, OrgRole, RouteTraceEntry, TaskStatus, UpstreamProtocol, UpstreamSettings, VideoFamily } from "./values";

/** Who owns a catalog row: the config file, an admin in the console, or demo mode. */
type RowSource = "demo" | "config" | "console";

// --- Signed-in user and organisations ---

export interface SessionUser {
  id: string;
  /** The active organisation: every console query is scoped to it. */
  accountId: string;
  /** The user's role in the active organisation (lib/orgs/roles.ts). */
  orgRole: OrgRole;
  /** The organisation created with the user. */
  personalAccountId: string;
  email: string;
  name: string | null;
  /** Gateway role: "admin" runs the gateway (Admin pages), whatever the organisation. */
  role: "user" | "admin";
}

export interface OrgSummary {
  id: string;
  name: string;
  personal: boolean;
  role: OrgRole;
  members: number;
}

export interface MemberView {
  userId: string;
  email: string;
  name: string | null;
  role: OrgRole;
  monthlyCapMicroUsd: number | null;
  /** Charged this month (the organisation's time zone) by the member's keys. */
  monthSpentMicroUsd: number;
  /** Reserved right now by the member's requests in flight. */
  heldMicroUsd: number;
  activeKeys: number;
  joinedAt: string;
}

export interface InviteView {
  id: string;
  email: string;
  role: OrgRole;
  monthlyCapMicroUsd: number | null;
  expiresAt: string;
  createdAt: string;
  state: "pending" | "accepted" | "revoked" | "expired";
}

export interface BudgetView {
  id: string;
  scope: BudgetScope;
  period: BudgetPeriod;
  /** Who it covers: the member's email or the key's name (null for the organisation). */
  userId: string | null;
  keyId: string | null;
  target: string | null;
  limitMicroUsd: number | null;
  softLimitMicroUsd: number | null;
  /** Spent and held in the current window (0 when nothing has been spent in it yet). */
  spentMicroUsd: number;
  heldMicroUsd: number;
  /** The window now (`2026-11-27`, `2026-W48`, `2026-11`) and when the next starts. */
  window: string;
  resetsAt: string;
}

// --- Balance, billing, ledger ---

export interface BalanceView {
  balanceMicroUsd: number;
  heldMicroUsd: number;
  disabled: boolean;
}

export interface BillingConfigView {
  stripeEnabled: boolean;
  minCents: number;
  maxCents: number;
  presetsCents: number[];
}

export interface CheckoutStatusView extends BalanceView {
  state: string;
  amountMicroUsd: number | null;
}

export interface AutoTopupView {
  /** Stripe is configured: cards can be saved. */
  available: boolean;
  /** "Visa •••• 4242", or null when no card is saved. */
  card: string | null;
  enabled: boolean;
  thresholdMicroUsd: number | null;
  amountMicroUsd: number | null;
  /** The latest attempts, newest first (state, amount, why it failed). */
  recent: { id: string; state: AutoTopupState; amountMicroUsd: number; errorCode: string | null; errorMessage: string | null; createdAt: string }[];
}

export interface LedgerView {
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

export interface ResponsesStorageView {
  storeResponses: boolean;
  responsesRetentionDays: number;
}

// --- Keys ---

export interface KeyView {
  id: string;
  name: string;
  /** The member the key belongs to (its spend counts against their monthly cap). */
  createdByUserId: string | null;
  createdByEmail: string | null;
  prefix: string;
  last4: string;
  allowedModels: string[] | null;
  limitMicroUsd: number | null;
  spentMicroUsd: number;
  rpm: number | null;
  tpm: number | null;
  maxConcurrent: number | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  previousExpiresAt: string | null;
  createdAt: string;
  status: "active" | "revoked" | "expired";
  requests30d: number;
  spend30dMicroUsd: number;
  /** Narrows the organisation's content logging (docs/content-logs.md); null = the organisation's. */
  contentLogMode: ContentLogMode | null;
}

export interface CreatedKey {
  id: string;
  /** Shown once. */
  key: string;
  prefix: string;
  last4: string;
}

// --- Usage, overview, requests ---

export interface DailySpend {
  day: string;
  model: string;
  costMicroUsd: number;
  requests: number;
  /** What caching saved that day on that model (see CACHE_SAVED). */
  savedMicroUsd: number;
}

/** A type alias, not an interface, so a row reads as a plain record (the inspector lists its token fields). */
export type RequestView = {
  id: number;
  requestId: string;
  createdAt: string;
  keyId: string | null;
  source: string;
  method: string;
  route: string;
  model: string | null;
  status: number;
  errorCode: string | null;
  stream: boolean;
  /** All prompt tokens; the cache classes are parts of it (docs/billing.md). */
  inputTokens: number;
  /** All output tokens; reasoning is a part of it. */
  outputTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  reasoningTokens: number;
  /** What was wrong with the upstream's usage, when something was. */
  usageNote: string | null;
  costMicroUsd: number;
  latencyMs: number;
  ttftMs: number | null;
  settlement: string | null;
};

/** Sums over a period (requests, tokens by class, cost, what caching saved). */
export interface UsageTotalsView {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  cacheSavedMicroUsd: number;
  /** What the exact response cache saved: its hits' `saved_micro_usd` (docs/guardrails.md). */
  responseCacheSavedMicroUsd: number;
  costMicroUsd: number;
  /** The part of costMicroUsd spent by batch lines (request_logs.batch_id set). */
  batchCostMicroUsd: number;
}

/** The overview page; the balance is null for roles that do not see billing. */
export type OverviewView = {
  last30d: UsageTotalsView;
  recent: RequestView[];
  daily: DailySpend[];
  activeKeys: number;
  keysLastUsedAt: string | null;
  disabled: boolean;
} & ({ balanceMicroUsd: number; heldMicroUsd: number } | { balanceMicroUsd: null; heldMicroUsd: null });

export interface AvailableModel {
  id: string;
  kind: ModelKind;
  ownedBy: string;
  price: ModelPrice;
}

/** One line of a text request's cost: a token class, its count and price. */
export interface CostLine {
  /** uncached input | cache read | … */
  label: string;
  tokens: number;
  perMTokMicroUsd: number;
  /** tokens × price / 10⁶, unrounded (micro-USD). */
  microUsd: number;
}

/** The request inspector: the log row, its cost lines, key, upstream, ledger, task and webhooks. */
export interface RequestDetail {
  request: RequestView & {
    source: "playground" | "api";
    upstreamId: string | null;
    inboundProtocol: string | null;
    upstreamProtocol: string | null;
    routing: string | null;
    priceSnapshot: ModelPrice | null;
    replayedItems: number | null;
    droppedParams: string | null;
    servedModel: string | null;
    routeTrace: RouteTraceEntry[] | null;
  };
  textCost: { lines: CostLine[]; sumMicroUsd: number; roundedMicroUsd: number } | null;
  key: { id: string; name: string; prefix: string; last4: string };
  upstream: { id: string; protocol: UpstreamProtocol };
  ledger: LedgerView[];
  task: {
    id: string;
    status: TaskStatus;
    progress: number;
    seconds: string | null;
    size: string | null;
    holdMicroUsd: number;
    costMicroUsd: number;
    errorMessage: string | null;
    createdAt: string;
    completedAt: string | null;
  } | null;
  deliveries: WebhookDeliveryView[];
}

// --- Tasks and webhooks ---

export interface TaskView {
  id: string;
  model: string;
  status: TaskStatus;
  progress: number;
  seconds: string | null;
  size: string | null;
  source: "playground" | "api";
  keyId: string | null;
  costMicroUsd: number;
  errorMessage: string | null;
  createdAt: string;
  completedAt: string | null;
  expiresAt: string | null;
}

export interface WebhookAttemptView {
  attemptNo: number;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  at: string;
}

export interface WebhookDeliveryView {
  id: string;
  taskId: string;
  url: string;
  eventStatus: string;
  isTest: boolean;
  /** pending (more attempts to come) | delivered | stopped (4xx) | failed (schedule used up). */
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  attemptLog: WebhookAttemptView[];
}

/** One webhook delivery attempt's outcome. */
export interface AttemptOutcome {
  result: "delivered" | "retry" | "stop";
  statusCode: number | null;
  /** Why the attempt did not succeed, for the owner's attempt log. Never a secret. */
  error: string | null;
  latencyMs: number;
}

/** A webhook test event sent now: its recorded delivery and the receiver's answer. */
export interface WebhookTestEvent {
  delivery: WebhookDeliveryView;
  outcome: AttemptOutcome;
}

// --- Playground ---

export interface PlaygroundModel {
  id: string;
  kind: ModelKind;
  family: VideoFamily | null;
  ownedBy: string;
  /** Integer micro-USD (token prices per million tokens). */
  price: ModelPrice;
}

export interface RequestUsage {
  requestId: string;
  model: string | null;
  status: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  settlement: string | null;
  ttftMs: number | null;
  latencyMs: number;
  source: string;
}

// --- Admin ---

export interface AdminUserView {
  createdAt: string;
  id: string;
  email: string;
  name: string | null;
  role: "user" | "admin";
  disabled: boolean;
  accountId: string;
  balanceMicroUsd: number;
  heldMicroUsd: number;
  rpm: number | null;
  tpm: number | null;
  maxConcurrent: number | null;
  keys: number;
  orgs: { id: string; name: string; personal: boolean; balanceMicroUsd: number }[];
}

export interface AdminUpstreamView {
  id: string;
  protocol: UpstreamProtocol;
  baseUrl: string;
  timeoutMs: number | null;
  enabled: boolean;
  source: RowSource;
  /** The key itself never leaves the server. */
  hasApiKey: boolean;
  /** Non-secret per-protocol settings (vendor, Azure API version, region, project…). */
  settings: UpstreamSettings;
  /** Secrets beyond the key are set (an Entra client secret, AWS keys); which, never. */
  hasCredentials: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AdminModelView {
  id: string;
  modelId: string;
  upstreamId: string;
  upstreamModel: string;
  kind: ModelKind;
  family: VideoFamily | null;
  ownedBy: string;
  price: ModelPrice;
  defaultMaxTokens: number | null;
  contextWindow: number | null;
  inputModalities: InputModality[] | null;
  strict: boolean;
  priority: number;
  weight: number;
  successor: string | null;
  serveSuccessorAfterShutdown: boolean;
  enabled: boolean;
  source: RowSource;
  deprecatedAt: string | null;
  shutdownAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A key that still called a deprecated model recently. */
export interface DeprecatedCallerView {
  model: string;
  keyId: string;
  accountId: string;
  lastAt: string | null;
  keyName: string;
  keyPrefix: string;
  accountName: string;
  requests: number;
}

export interface AdminAliasView {
  id: string;
  targets: string[];
  contextFallback: boolean;
  enabled: boolean;
  source: RowSource;
  createdAt: string;
  updatedAt: string;
}

/** Admin → Guardrails: an entry of the config file (read-only there) or stored from the console. */
export interface AdminGuardrailView {
  id: string;
  source: "config" | "console";
  /** The entry as in the config file; a webhook's secret shows as "set". */
  definition: Record<string, unknown>;
  updatedAt: string | null;
}

export interface AuditView {
  id: number;
  actorUserId: string | null;
  actor: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  targetName: string | null;
  details: Record<string, unknown> | null;
  createdAt: Date;
}

export interface HealthPolicy {
  windowMs: number;
  /** Attempts in the window before its error rate is judged (a single failure never opens a circuit). */
  minRequests: number;
  /** Failed share (0–1] at or above which the circuit opens; 0 = circuits off (routing still by tier and weight). */
  errorRate: number;
  /**
   * Distinct callers (organisations) whose attempts failed in the window before it opens: one
   * caller's requests (a poison input, a long generation) must not close an upstream for everyone.
   */
  minCallers: number;
  /**
   * Organisations that could call at all (those holding a live key), counted now and then: a
   * gateway with fewer of them than `minCallers` (one team) opens on the failures of all of them.
   */
  possibleCallers?: number;
  /** Open → half-open after this; doubled after each failed probe, up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
  /** A half-open entry's probe slot is freed by the probe's outcome, or after this. */
  probeLeaseMs: number;
}

export type CircuitState = "closed" | "open" | "half_open";

export interface ErrorSample {
  /** Epoch ms. */
  at: number;
  status: number;
  code: string;
  /** Already redacted by classifyFailure (no key, URL or host). */
  message: string;
}

/** One (model, upstream) circuit as the health registry sees it now. */
export interface EntryHealth {
  key: string;
  modelId: string;
  upstreamId: string;
  state: CircuitState;
  errorRate: number;
  attempts: number;
  failed: number;
  openedAt: number | null;
  openUntil: number | null;
  reason: string | null;
  changedAt: number | null;
  lastErrors: ErrorSample[];
}

export interface UpstreamHealthView {
  policy: HealthPolicy;
  /** With the route's tier and weight (null when the route is gone). */
  entries: (EntryHealth & { priority: number | null; weight: number | null })[];
  history: {
    id: number;
    modelId: string;
    upstreamId: string;
    state: "open" | "closed";
    reason: string;
    errorPercent: number;
    attempts: number;
    lastError: ErrorSample | null;
    openUntil: string | null;
    createdAt: string;
  }[];
  webhook: { url: string; hasSecret: boolean } | null;
}

export interface UpstreamWebhookSavedView {
  ok: true;
  url: string | null;
  /** A generated secret, shown once. */
  secret?: string;
}

export interface UpstreamWebhookTestedView {
  id: string;
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

// --- Content logs (docs/content-logs.md) ---

/** One part of a logged message. Images keep their bytes up to a limit (the inspector shows thumbnails). */
export type LoggedPart =
  | { type: "text"; text: string }
  | { type: "image"; mediaType?: string; data?: string; url?: string; omittedBytes?: number }
  | { type: "document"; filename?: string; mediaType?: string; text?: string; url?: string; omittedBytes?: number }
  | { type: "tool_call"; id: string; name: string; arguments: string }
  | { type: "tool_result"; callId: string; name?: string; isError?: boolean; content: LoggedPart[] }
  | { type: "reasoning"; text: string };

/** What a content log holds once unsealed: the canonical request and the (reassembled) answer, redacted. */
export interface ContentRecord {
  v: 1;
  request: { model: string; system?: string; messages: Array<{ role: "user" | "assistant"; parts: LoggedPart[] }>; tools?: string[] };
  answer: {
    text: string;
    reasoning?: string;
    toolCalls: Array<{ id: string; name: string; arguments: string }>;
    stopReason: string | null;
    /** The error code when no (whole) answer came back. */
    error?: string;
  };
  /** Some strings were cut to stay within the size limit. */
  truncated?: boolean;
}

export interface ContentLogView {
  requestId: string;
  model: string | null;
  stream: boolean;
  createdAt: Date;
  content: ContentRecord;
}

export interface ContentLogSettingsView {
  mode: ContentLogMode;
  retentionDays: number;
  redact: string[];
  builtins: string[];
  /** Set when logging is on: only requests from then on are logged. */
  note: string;
}

export interface AuditWebhookView {
  url: string | null;
}

/** A batch on the console's Batches page (lib/console/batches.ts). */
export interface BatchSummaryView {
  id: string;
  /** The API it was created with: it is read there only. */
  dialect: "openai" | "anthropic" | "gemini";
  endpoint: string;
  status: BatchStatus;
  keyId: string | null;
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  expired: number;
  running: number;
  /** Charged so far, at the batch price. */
  costMicroUsd: number;
  /** What the batch still holds of the organisation's balance. */
  heldMicroUsd: number;
  /** Of that, the shares of lines running now (a cancel lets them finish). */
  inFlightMicroUsd: number;
  createdAt: string;
  /** The end of its completion window. */
  expiresAt: string;
  endedAt: string | null;
  /** Downloads: the results (succeeded lines) and the errors (the others), once it has ended with such lines. */
  hasResults: boolean;
  hasErrors: boolean;
}
