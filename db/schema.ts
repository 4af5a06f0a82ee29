/**
 * The whole product's schema. Money columns are integer micro-USD (1 USD = 1,000,000) with the
 * unit in the name; `mode: "number"` is safe because every amount stays far below 2^53.
 * Timestamps are timestamptz. Ids are text with a typed prefix (lib/ids.ts).
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
// The columns' value vocabulary lives in lib/values.ts so the browser can share it without this file.
import { ORG_ROLES, INPUT_MODALITIES, BUDGET_SCOPES, BUDGET_PERIODS, OPENAI_VENDORS, type OpenAIVendor, type UpstreamSettings, type UpstreamCredentials, type OrgRole, type UpstreamProtocol, type ModelKind, type VideoFamily, type ModelPrice, type RouteTraceEntry, type InputModality, type BudgetScope, type BudgetPeriod, type AutoTopupState, type TaskStatus, type ContentLogMode, type BatchStatus } from "../lib/values";
export { ORG_ROLES, INPUT_MODALITIES, BUDGET_SCOPES, BUDGET_PERIODS, OPENAI_VENDORS };
export type { OpenAIVendor, UpstreamSettings, UpstreamCredentials, OrgRole, UpstreamProtocol, ModelKind, VideoFamily, ModelPrice, RouteTraceEntry, InputModality, BudgetScope, BudgetPeriod, AutoTopupState, TaskStatus, ContentLogMode };

const micro = (name: string) => bigint(name, { mode: "number" });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const createdAt = () => ts("created_at").notNull().defaultNow();

/**
 * An organisation (the table keeps its first name, "accounts", and every `account_id` means
 * the organisation): the owner of a prepaid balance, keys, ledger, holds, requests, tasks and
 * webhooks. Users reach it through `memberships`; every user has a personal one (decision 0018).
 */
export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** The organisation created with a user at sign-up (users.account_id points at it). */
  personal: boolean("personal").notNull().default(false),
  /** IANA time zone that monthly caps and budget windows follow. */
  timeZone: text("time_zone").notNull().default("UTC"),
  /** Printed on receipts; all optional. */
  billingName: text("billing_name"),
  billingEmail: text("billing_email"),
  billingAddress: text("billing_address"),
  billingTaxId: text("billing_tax_id"),
  /** Prepaid balance; always equals the sum of this account's ledger rows. */
  balanceMicroUsd: micro("balance_micro_usd").notNull().default(0),
  /** Reserved by in-flight requests (rows in `holds`); spendable = balance - held. */
  heldMicroUsd: micro("held_micro_usd").notNull().default(0),
  /** null = every enabled model; otherwise the only public model ids the account may use. */
  allowedModels: text("allowed_models").array(),
  disabled: boolean("disabled").notNull().default(false),
  /** Requests per minute across all of the account's keys; null = no account-wide limit. */
  rpm: integer("rpm"),
  /** Tokens per minute (prompt bound + output cap reserved, settled to usage) across its keys; null = none. Set by an admin. */
  tpm: integer("tpm"),
  /** Requests in flight at once across its keys; null = none. Set by an admin. */
  maxConcurrent: integer("max_concurrent"),
  /** false = no key of this account stores Responses API responses, whatever `store` says. */
  storeResponses: boolean("store_responses").notNull().default(true),
  /** Alert when the balance falls below this (a trigger in migration 0012 raises it); null = off. */
  lowBalanceThresholdMicroUsd: micro("low_balance_threshold_micro_usd"),
  /** Bumped by that trigger when the balance goes back above the threshold: re-arms the alert. */
  lowBalanceEpoch: integer("low_balance_epoch").notNull().default(0),
  /** Stripe Customer holding the auto top-up card (made when the first card is saved). */
  stripeCustomerId: text("stripe_customer_id"),
  /** The saved card's PaymentMethod id and its display ("Visa •••• 4242"); null = none. */
  autoTopupPaymentMethod: text("auto_topup_payment_method"),
  autoTopupCard: text("auto_topup_card"),
  /** When its owner deleted the organisation (it is also disabled): a payment arriving later is refunded. */
  deletedAt: ts("deleted_at"),
  /** The user who saved the card (null: saved before migration 0015): leaving the organisation forgets it. */
  autoTopupCardSavedBy: text("auto_topup_card_saved_by"),
  /** "When the balance falls below X, add Y" (migration 0014's trigger); null = off. */
  autoTopupThresholdMicroUsd: micro("auto_topup_threshold_micro_usd"),
  autoTopupAmountMicroUsd: micro("auto_topup_amount_micro_usd"),
  /** Bumped when the balance goes back to or above the threshold: re-arms auto top-up. */
  autoTopupEpoch: integer("auto_topup_epoch").notNull().default(0),
  /** The organisation has a budget (budgets.ts keeps it): the api_keys trigger looks for them. */
  hasBudgets: boolean("has_budgets").notNull().default(false),
  /** Email alerts to owners and billing members. */
  alertEmail: boolean("alert_email").notNull().default(true),
  /** Signed alert webhook (same SSRF rules and signing as task webhooks); null = none. */
  alertWebhookUrl: text("alert_webhook_url"),
  alertWebhookSecretEncrypted: text("alert_webhook_secret_encrypted"),
  /** Who created it from the console (null: personal, or made before migration 0016); deleted ones still count. */
  createdByUserId: text("created_by_user_id"),
  /** Content logging (docs/content-logs.md): off (the default), metadata (the request log only) or full (prompts and answers). */
  contentLogMode: text("content_log_mode").$type<ContentLogMode>().notNull().default("off"),
  /** Content log rows older than this many days are deleted by the retention job. */
  contentLogRetentionDays: integer("content_log_retention_days").notNull().default(30),
  /** The organisation's own redaction patterns (JavaScript regular expressions, checked when saved). */
  contentLogRedact: text("content_log_redact").array().notNull().default(sql`'{}'::text[]`),
  /** Built-in redactions applied: api_keys, card_numbers, emails. */
  contentLogBuiltins: text("content_log_builtins").array().notNull().default(sql`'{api_keys,card_numbers,emails}'::text[]`),
  /** Signed audit-event stream (the task webhooks' queue, kind "audit"); null = none. */
  auditWebhookUrl: text("audit_webhook_url"),
  auditWebhookSecretEncrypted: text("audit_webhook_secret_encrypted"),
  createdAt: createdAt(),
}, (t) => [
  // An unverified user's organisations are counted at each creation (lib/orgs/manage.ts createOrg).
  index("accounts_created_by_idx").on(t.createdByUserId).where(sql`${t.createdByUserId} is not null`),
]);

/** Console users; next-auth reads these through lib/auth. */
export const users = pgTable("users", {
  id: text("id").primaryKey(),
  /** The user's personal organisation (also a row in `memberships`, as its owner). */
  accountId: text("account_id").notNull().references(() => accounts.id),
  /** Stored lower-cased. */
  email: text("email").notNull().unique(),
  name: text("name"),
  image: text("image"),
  emailVerified: ts("email_verified"),
  /** argon2id; null for users who only sign in with an OAuth provider. */
  passwordHash: text("password_hash"),
  role: text("role").$type<"user" | "admin">().notNull().default("user"),
  disabled: boolean("disabled").notNull().default(false),
  /** Bumped on disable, demotion or password change so existing JWT sessions stop working. */
  sessionVersion: integer("session_version").notNull().default(0),
  createdAt: createdAt(),
});

/**
 * Who belongs to which organisation, with what role, and the member's monthly spending cap.
 * The month's spend and held amounts are kept here so the cap is checked in the same
 * conditional UPDATE chain as the balance (lib/billing/lock-order.ts); `cap_month` is the first
 * day of the month they count, in the organisation's time zone, and a hold in a new month starts
 * the spend from zero.
 */
export const memberships = pgTable(
  "memberships",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<OrgRole>().notNull(),
    /** null = no cap beyond the organisation's balance. */
    monthlyCapMicroUsd: micro("monthly_cap_micro_usd"),
    capMonth: text("cap_month"),
    monthSpentMicroUsd: micro("month_spent_micro_usd").notNull().default(0),
    heldMicroUsd: micro("held_micro_usd").notNull().default(0),
    invitedByUserId: text("invited_by_user_id"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.userId] }), index("memberships_user_idx").on(t.userId)],
);

/**
 * Invitations to join an organisation. The emailed link carries a signed token naming the row
 * (lib/orgs/invites.ts); accepting sets accepted_at with a conditional UPDATE, so a link works
 * once, and not after expires_at or revocation.
 */
export const orgInvites = pgTable(
  "org_invites",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** Stored lower-cased; only a user signed in with this email may accept. */
    email: text("email").notNull(),
    role: text("role").$type<OrgRole>().notNull(),
    monthlyCapMicroUsd: micro("monthly_cap_micro_usd"),
    invitedByUserId: text("invited_by_user_id").notNull(),
    expiresAt: ts("expires_at").notNull(),
    acceptedAt: ts("accepted_at"),
    acceptedByUserId: text("accepted_by_user_id"),
    revokedAt: ts("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [index("org_invites_account_idx").on(t.accountId, t.createdAt)],
);

/** OAuth identities linked to a user (next-auth's "accounts" table, renamed to avoid a clash). */
export const authAccounts = pgTable(
  "auth_accounts",
  {
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    provider: text("provider").notNull(),
    providerAccountId: text("provider_account_id").notNull(),
    refreshToken: text("refresh_token"),
    accessToken: text("access_token"),
    expiresAt: integer("expires_at"),
    tokenType: text("token_type"),
    scope: text("scope"),
    idToken: text("id_token"),
    sessionState: text("session_state"),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerAccountId] })],
);

export const verificationTokens = pgTable(
  "verification_tokens",
  {
    identifier: text("identifier").notNull(),
    token: text("token").notNull(),
    expires: ts("expires").notNull(),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    name: text("name").notNull().default(""),
    /** sha256 hex of the full key. The key itself is never stored. */
    hash: text("hash").notNull(),
    /** Display only: `sk-` and the next few characters. */
    prefix: text("prefix").notNull(),
    last4: text("last4").notNull(),
    /** After a roll: the old secret's hash, valid until previousExpiresAt. */
    previousHash: text("previous_hash"),
    previousExpiresAt: ts("previous_expires_at"),
    /** null or empty = every model the account may use. */
    allowedModels: text("allowed_models").array(),
    /** Spend cap over the key's life; null = none. Enforced like the balance (holds count). */
    limitMicroUsd: micro("limit_micro_usd"),
    spentMicroUsd: micro("spent_micro_usd").notNull().default(0),
    heldMicroUsd: micro("held_micro_usd").notNull().default(0),
    /** Requests per minute; null = DEFAULT_KEY_RPM. */
    rpm: integer("rpm"),
    /** Tokens per minute (docs/decisions/0023-tpm-reservation.md); null = no limit. */
    tpm: integer("tpm"),
    /** Requests in flight at once; null = no limit. */
    maxConcurrent: integer("max_concurrent"),
    /** The exact response cache (decision 0057): null = only when a request asks (`x-gateway-cache: on`), `on` = every deterministic request, `all` = temperature > 0 too. */
    responseCache: text("response_cache").$type<"on" | "all">(),
    expiresAt: ts("expires_at"),
    revokedAt: ts("revoked_at"),
    lastUsedAt: ts("last_used_at"),
    createdByUserId: text("created_by_user_id"),
    /** The playground's key of its creator (one live per member): hidden, never a bearer; its spend counts like any key's. */
    playground: boolean("playground").notNull().default(false),
    /** Narrows the organisation's content logging for this key (never widens it); null = the organisation's. */
    contentLogMode: text("content_log_mode").$type<ContentLogMode>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("api_keys_hash_idx").on(t.hash),
    uniqueIndex("api_keys_playground_idx").on(t.accountId, t.createdByUserId).where(sql`playground and revoked_at is null`),
    // Lookups during a roll's grace period go by the old hash.
    uniqueIndex("api_keys_previous_hash_idx").on(t.previousHash),
    index("api_keys_account_idx").on(t.accountId),
  ],
);

export const upstreams = pgTable("upstreams", {
  id: text("id").primaryKey(),
  protocol: text("protocol").$type<UpstreamProtocol>().notNull(),
  baseUrl: text("base_url").notNull().default(""),
  /** AES-256-GCM ciphertext (lib/crypto.ts); never returned by any API. */
  apiKeyEncrypted: text("api_key_encrypted"),
  /** Secrets beyond one key (an Entra client secret, …) as encrypted JSON (`UpstreamCredentials`); never returned. */
  credentialsEncrypted: text("credentials_encrypted"),
  /** Per-request timeout override in ms; null = the route's default. */
  timeoutMs: integer("timeout_ms"),
  /** What the protocol needs beyond a base URL and a key, never a secret (e.g. an `openai` upstream's vendor). */
  settings: jsonb("settings").$type<UpstreamSettings>().notNull().default({}),
  enabled: boolean("enabled").notNull().default(true),
  /** "config" rows are owned by the gateway config file, "console" rows by admins. */
  source: text("source").$type<"config" | "console" | "demo">().notNull().default("console"),
  createdAt: createdAt(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/** One (public model id, upstream) route. Several rows may share modelId: failover by priority. */
export const models = pgTable(
  "models",
  {
    id: text("id").primaryKey(),
    modelId: text("model_id").notNull(),
    upstreamId: text("upstream_id").notNull().references(() => upstreams.id),
    upstreamModel: text("upstream_model").notNull(),
    kind: text("kind").$type<ModelKind>().notNull(),
    family: text("family").$type<VideoFamily>(),
    ownedBy: text("owned_by").notNull(),
    price: jsonb("price").$type<ModelPrice>().notNull(),
    /** The model's output cap (config `maxOutputTokens`): used when a request names none; also bounds the hold. */
    defaultMaxTokens: integer("default_max_tokens"),
    /** Prompt + output tokens the model takes, for clients sizing requests (`/v1/models`). */
    contextWindow: integer("context_window"),
    /** What a prompt may hold besides text, for clients (`/v1/models`): "image", "pdf", "audio", "video". */
    inputModalities: jsonb("input_modalities").$type<InputModality[]>(),
    /** Converted requests with hints this upstream lacks are refused, not dropped (docs/conversion-policy.md). */
    strict: boolean("strict").notNull().default(false),
    /** Routing tier among rows sharing modelId: lower first; equal = one tier, shared by weight. */
    priority: integer("priority").notNull().default(0),
    /** Share of its tier's requests (0 = standby: only after the rest of the tier). */
    weight: integer("weight").notNull().default(1),
    /** From then on every reply for the model carries Deprecation (and Sunset) headers (decision 0051). Shared by rows of one modelId. */
    deprecatedAt: ts("deprecated_at"),
    /** From then on the model answers 410 model_shut_down, or its successor serves (below). Shared by rows of one modelId. */
    shutdownAt: ts("shutdown_at"),
    /** The public model id that replaces this one (same kind), named in the headers and the 410. */
    successor: text("successor"),
    /** After shutdownAt, serve requests with the successor at its price instead of the 410. */
    serveSuccessorAfterShutdown: boolean("serve_successor_after_shutdown").notNull().default(false),
    enabled: boolean("enabled").notNull().default(true),
    source: text("source").$type<"config" | "console" | "demo">().notNull().default("console"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("models_model_upstream_idx").on(t.modelId, t.upstreamId)],
);

/**
 * A public name (or a wildcard pattern such as `claude-sonnet-4-5-*`) standing for an ordered list
 * of model ids; each target keeps its own entries and price (docs/decisions/0022-alias-precedence.md).
 */
export const modelAliases = pgTable("model_aliases", {
  /** The alias name, or a pattern where `*` matches any run of characters. */
  id: text("id").primaryKey(),
  /** Public model ids, tried in this order (each with its own upstream entries). */
  targets: text("targets").array().notNull(),
  /** A prompt too long for a target's context window goes to the next target. */
  contextFallback: boolean("context_fallback").notNull().default(false),
  enabled: boolean("enabled").notNull().default(true),
  source: text("source").$type<"config" | "console" | "demo">().notNull().default("console"),
  createdAt: createdAt(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * Guardrails added in Admin → Guardrails (docs/guardrails.md): one config-file entry each, as JSON
 * without its webhook secret, which is stored encrypted beside it. The config file's entries win
 * for their ids.
 */
export const storedGuardrails = pgTable("stored_guardrails", {
  id: text("id").primaryKey(),
  definition: jsonb("definition").$type<Record<string, unknown>>().notNull(),
  secretEncrypted: text("secret_encrypted"),
  createdAt: createdAt(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * Append-only. Every balance change is one row, written in the same transaction as the
 * balance update; the idempotency key makes a replayed change (a retried webhook, a
 * duplicate task report) a no-op enforced by the database.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    deltaMicroUsd: micro("delta_micro_usd").notNull(),
    balanceAfterMicroUsd: micro("balance_after_micro_usd").notNull(),
    kind: text("kind").$type<LedgerKind>().notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    requestId: text("request_id"),
    taskId: text("task_id"),
    keyId: text("key_id"),
    actorUserId: text("actor_user_id"),
    note: text("note"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("ledger_idempotency_idx").on(t.idempotencyKey),
    index("ledger_account_idx").on(t.accountId, t.id),
  ],
);

export type LedgerKind =
  | "topup"
  | "charge"
  | "hold"
  | "release"
  | "refund"
  | "admin_credit"
  | "admin_debit"
  | "stripe_refund"
  | "stripe_dispute"
  | "redeem";

/**
 * Money reserved for an in-flight request (or leased in a chunk to an instance). A crashed
 * process leaves rows behind; a sweeper returns those past expiresAt to the account.
 */
export const holds = pgTable(
  "holds",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    keyId: text("key_id"),
    amountMicroUsd: micro("amount_micro_usd").notNull(),
    /** Set for balance leases owned by one gateway instance. */
    instanceId: text("instance_id"),
    expiresAt: ts("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("holds_expires_idx").on(t.expiresAt)],
);

/** One row per public API or playground request. Never the prompt or the output. */
export const requestLogs = pgTable(
  "request_logs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    requestId: text("request_id").notNull(),
    accountId: text("account_id"),
    keyId: text("key_id"),
    userId: text("user_id"),
    source: text("source").$type<"api" | "playground">().notNull().default("api"),
    method: text("method").notNull(),
    route: text("route").notNull(),
    model: text("model"),
    upstreamId: text("upstream_id"),
    inboundProtocol: text("inbound_protocol"),
    upstreamProtocol: text("upstream_protocol"),
    status: integer("status").notNull(),
    errorCode: text("error_code"),
    stream: boolean("stream").notNull().default(false),
    /** All prompt tokens (cache reads and writes included); 64-bit: upstreams report what they like. */
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    /** All output tokens (reasoning included). */
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    /** Parts of inputTokens read from / written to the upstream's prompt cache. */
    cacheReadTokens: bigint("cache_read_tokens", { mode: "number" }).notNull().default(0),
    cacheWrite5mTokens: bigint("cache_write_5m_tokens", { mode: "number" }).notNull().default(0),
    cacheWrite1hTokens: bigint("cache_write_1h_tokens", { mode: "number" }).notNull().default(0),
    /** Part of outputTokens. */
    reasoningTokens: bigint("reasoning_tokens", { mode: "number" }).notNull().default(0),
    /** Text models that draw: image tokens, part of outputTokens (decision 0073). */
    imageOutputTokens: bigint("image_output_tokens", { mode: "number" }).notNull().default(0),
    /** Audio models: audio tokens, parts of inputTokens and outputTokens (docs/audio.md). */
    audioInputTokens: bigint("audio_input_tokens", { mode: "number" }).notNull().default(0),
    audioOutputTokens: bigint("audio_output_tokens", { mode: "number" }).notNull().default(0),
    /** Audio models: the duration the gateway decoded (uploaded, or produced), in milliseconds. */
    audioMs: integer("audio_ms"),
    /** Speech models: the input text's length in characters. */
    inputCharacters: integer("input_characters"),
    /** What was wrong with the upstream's usage (counts that were not whole numbers, what we estimated). */
    usageNote: text("usage_note"),
    /** How the upstream entry was chosen when the model has several: `sticky` (prompt-cache affinity) or `order`. */
    routing: text("routing"),
    costMicroUsd: micro("cost_micro_usd").notNull().default(0),
    /** completed | client_disconnect | upstream_error | rejected | … */
    settlement: text("settlement"),
    /** Prices used for the charge, so history survives price edits. */
    priceSnapshot: jsonb("price_snapshot").$type<ModelPrice>(),
    latencyMs: integer("latency_ms").notNull().default(0),
    ttftMs: integer("ttft_ms"),
    /** Responses API: stored items replayed into the prompt (previous_response_id, item_reference). */
    replayedItems: integer("replayed_items"),
    /** Hints the conversion dropped for the serving upstream, as x-gateway-dropped-params named them. */
    droppedParams: text("dropped_params"),
    /** The model that served (and whose price was charged) when `model` named an alias. */
    servedModel: text("served_model"),
    /** Models with several entries: which served, which failed, which were skipped (open circuit) and why (lib/gateway/health/trace.ts). */
    routeTrace: jsonb("route_trace").$type<RouteTraceEntry[]>(),
    /** The batch this row is a line of (lib/gateway/batches). */
    batchId: text("batch_id"),
    /** The guardrails applied (stages, stream policy) and their verdict, e.g. `post=pii (holdback 64); redacted by pii (post_response)`. */
    guardrails: text("guardrails"),
    /** A response-cache hit: what the cached answer cost when it was made (the hit itself costs 0). */
    savedMicroUsd: micro("saved_micro_usd"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("request_logs_request_id_idx").on(t.requestId),
    index("request_logs_account_idx").on(t.accountId, t.createdAt),
    index("request_logs_key_idx").on(t.keyId, t.createdAt),
    // The console's "keys still calling a deprecated model" (last 30 days, by model).
    index("request_logs_model_idx").on(t.model, t.createdAt),
  ],
);

export type StoredResponseStatus = "queued" | "in_progress" | "completed" | "failed" | "cancelled" | "incomplete";

/**
 * Stored Responses API responses (store defaults to true): the response object and the input
 * items that produced it, sealed with lib/crypto.ts, scoped to the account, deleted after
 * RESPONSES_RETENTION_DAYS. `item_ids` lists every input and output item id so that an
 * `item_reference` finds its response without decrypting anything else.
 */
export const storedResponses = pgTable(
  "stored_responses",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    keyId: text("key_id"),
    status: text("status").$type<StoredResponseStatus>().notNull(),
    model: text("model").notNull(),
    /** The upstream that produced the output: its encrypted reasoning goes back only to it. */
    upstreamId: text("upstream_id"),
    background: boolean("background").notNull().default(false),
    itemIds: text("item_ids").array().notNull(),
    inputCount: integer("input_count").notNull().default(0),
    /** encryptSecret(JSON of { response, input, request? }). */
    sealed: text("sealed").notNull(),
    /** Background streams: the SSE events so far, sealed, for resuming with starting_after. */
    sealedEvents: text("sealed_events"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("stored_responses_account_idx").on(t.accountId, t.createdAt),
    index("stored_responses_items_idx").using("gin", t.itemIds),
    index("stored_responses_created_idx").on(t.createdAt),
  ],
);


/** Asynchronous (video) tasks. The worker claims due rows with FOR UPDATE SKIP LOCKED. */
export const tasks = pgTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    keyId: text("key_id"),
    userId: text("user_id"),
    source: text("source").$type<"api" | "playground">().notNull().default("api"),
    model: text("model").notNull(),
    modelRowId: text("model_row_id"),
    upstreamId: text("upstream_id"),
    upstreamModel: text("upstream_model"),
    upstreamTaskId: text("upstream_task_id"),
    family: text("family").$type<VideoFamily>(),
    status: text("status").$type<TaskStatus>().notNull().default("queued"),
    /** 0–100, never decreases. */
    progress: integer("progress").notNull().default(0),
    seconds: text("seconds"),
    size: text("size"),
    /** What the upstream is sent (prompt and family fields); needed until submission. */
    params: jsonb("params").$type<Record<string, unknown>>().notNull().default({}),
    webhookUrl: text("webhook_url"),
    /** Encrypted with lib/crypto.ts. */
    webhookSecretEncrypted: text("webhook_secret_encrypted"),
    holdMicroUsd: micro("hold_micro_usd").notNull().default(0),
    costMicroUsd: micro("cost_micro_usd").notNull().default(0),
    errorMessage: text("error_message"),
    /** Storage keys of the finished media files. */
    mediaKeys: jsonb("media_keys").$type<string[]>(),
    mediaDeletedAt: ts("media_deleted_at"),
    createdAt: createdAt(),
    startedAt: ts("started_at"),
    completedAt: ts("completed_at"),
    /** Media retention end (completedAt + 14 days). */
    expiresAt: ts("expires_at"),
    /** Fail and refund when the upstream has not finished by then. */
    deadlineAt: ts("deadline_at"),
    nextPollAt: ts("next_poll_at"),
    lockedUntil: ts("locked_until"),
    pollFailures: integer("poll_failures").notNull().default(0),
  },
  (t) => [
    index("tasks_account_idx").on(t.accountId, t.createdAt),
    // The worker's claim query: unfinished tasks by due time.
    index("tasks_due_idx")
      .on(t.nextPollAt)
      .where(sql`status in ('queued', 'in_progress')`),
  ],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    /** task: a task's final state to its owner; operator: an upstream.opened/closed event to the admin-set URL; alert; batch: a batch's end; audit: an audit event to the organisation's audit webhook. */
    kind: text("kind").$type<"task" | "operator" | "alert" | "batch" | "audit">().notNull().default("task"),
    /** The task, or for operator events the upstream entry (`model@upstream`). */
    taskId: text("task_id").notNull(),
    /** Null for operator events (no account owns them). */
    accountId: text("account_id").references(() => accounts.id),
    /** Operator events: the signing secret when the event was queued (task deliveries read the task's). */
    secretEncrypted: text("secret_encrypted"),
    url: text("url").notNull(),
    /** The exact bytes sent on every attempt. */
    body: text("body").notNull(),
    /** The task status this delivery announces (dedupe key with taskId). */
    eventStatus: text("event_status").notNull(),
    isTest: boolean("is_test").notNull().default(false),
    state: text("state").$type<"pending" | "delivered" | "failed" | "stopped">().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at"),
    lockedUntil: ts("locked_until"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`state = 'pending'`),
    index("webhook_deliveries_task_idx").on(t.taskId),
  ],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id),
    attemptNo: integer("attempt_no").notNull(),
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms"),
    error: text("error"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("webhook_attempts_no_idx").on(t.deliveryId, t.attemptNo)],
);

/** Uploaded files (`/v1/files`): the bytes live in media storage under `storageKey`; ids are ours. */
export const files = pgTable(
  "files",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    keyId: text("key_id"),
    userId: text("user_id"),
    filename: text("filename").notNull(),
    purpose: text("purpose").notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    storageKey: text("storage_key").notNull(),
    /** The upload's media type (Anthropic's `mime_type`); null for the gateway's own files. */
    mimeType: text("mime_type"),
    /** Hex SHA-256 of the bytes (Gemini's `sha256Hash`); null for files stored before it was kept. */
    sha256: text("sha256"),
    createdAt: createdAt(),
    expiresAt: ts("expires_at"),
    deletedAt: ts("deleted_at"),
  },
  (t) => [index("files_account_idx").on(t.accountId, t.createdAt), index("files_expires_idx").on(t.expiresAt).where(sql`deleted_at is null`)],
);

/** A resumable upload under way (Google's Files API): its chunks are in media storage, listed in order. */
export const fileUploads = pgTable(
  "file_uploads",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    keyId: text("key_id"),
    userId: text("user_id"),
    /** The file the finished upload becomes. */
    fileId: text("file_id").notNull(),
    displayName: text("display_name"),
    mimeType: text("mime_type").notNull(),
    /** `X-Goog-Upload-Header-Content-Length`, when the start named it. */
    declaredBytes: bigint("declared_bytes", { mode: "number" }),
    receivedBytes: bigint("received_bytes", { mode: "number" }).notNull().default(0),
    partKeys: text("part_keys").array().notNull().default(sql`'{}'`),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("file_uploads_expires_idx").on(t.expiresAt)],
);

export type { BatchStatus };
export type BatchLineStatus = "pending" | "running" | "succeeded" | "failed" | "cancelled" | "expired";

/**
 * Batches (`/v1/batches`, `/v1/messages/batches`): one hold for the whole batch (`holdId`), the
 * key's principal as it was at creation (lines run as that caller), the dialect it was created in.
 */
export const batches = pgTable(
  "batches",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    keyId: text("key_id"),
    userId: text("user_id"),
    dialect: text("dialect").$type<"openai" | "anthropic" | "gemini">().notNull(),
    endpoint: text("endpoint").notNull(),
    inputFileId: text("input_file_id"),
    status: text("status").$type<BatchStatus>().notNull(),
    principal: jsonb("principal").$type<Record<string, unknown>>().notNull(),
    holdId: text("hold_id"),
    holdMicroUsd: micro("hold_micro_usd").notNull().default(0),
    totalLines: integer("total_lines").notNull(),
    metadata: jsonb("metadata").$type<Record<string, string> | null>(),
    webhookUrl: text("webhook_url"),
    webhookSecretEncrypted: text("webhook_secret_encrypted"),
    outputFileId: text("output_file_id"),
    errorFileId: text("error_file_id"),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    cancellingAt: ts("cancelling_at"),
    finalizingAt: ts("finalizing_at"),
    endedAt: ts("ended_at"),
    lockedUntil: ts("locked_until"),
    /** Gemini's batches.delete: hidden from every read (the books keep it). */
    deletedAt: ts("deleted_at"),
  },
  (t) => [
    index("batches_account_idx").on(t.accountId, t.createdAt),
    index("batches_open_idx").on(t.status).where(sql`status in ('in_progress', 'cancelling', 'finalizing')`),
  ],
);

/** One request of a batch: claimed by a runner with a lease (`claim`, `dueAt`), settled exactly once. */
export const batchLines = pgTable(
  "batch_lines",
  {
    batchId: text("batch_id").notNull().references(() => batches.id),
    idx: integer("idx").notNull(),
    customId: text("custom_id").notNull(),
    url: text("url").notNull(),
    /** The request body, sealed with lib/crypto.ts (prompts are never stored in the clear). */
    body: text("body").notNull(),
    bodyBytes: integer("body_bytes").notNull(),
    /** This line's part of the batch's hold: its worst case at the batch price. */
    shareMicroUsd: micro("share_micro_usd").notNull(),
    status: text("status").$type<BatchLineStatus>().notNull().default("pending"),
    /** The runner holding the line; its lease ends at dueAt. */
    claim: text("claim"),
    dueAt: ts("due_at").notNull().defaultNow(),
    attempts: integer("attempts").notNull().default(0),
    requestId: text("request_id").notNull(),
    costMicroUsd: micro("cost_micro_usd").notNull().default(0),
    /** `{ status_code, body }` of the answer, sealed like `body`. */
    result: text("result"),
    endedAt: ts("ended_at"),
    /** The catalog entry whose vendor batch API serves this line (decision 0070); null = the gateway runs it. */
    nativeRoute: text("native_route"),
    /** The vendor batch holding the line once submitted (`vendor_batches.id`). */
    vendorBatchId: text("vendor_batch_id"),
  },
  (t) => [
    primaryKey({ name: "batch_lines_pk", columns: [t.batchId, t.idx] }),
    index("batch_lines_due_idx").on(t.dueAt).where(sql`status in ('pending', 'running')`),
    index("batch_lines_native_idx").on(t.batchId, t.nativeRoute).where(sql`status = 'pending' AND native_route IS NOT NULL`),
  ],
);

/**
 * A batch submitted to a vendor's own batch API (decision 0070): one per (batch, catalog entry)
 * group of lines. `dueAt` is when it is next polled (or, while `submitting`, when its submitter's
 * lease ends); `vendorId` never leaves the gateway.
 */
export const vendorBatches = pgTable(
  "vendor_batches",
  {
    id: text("id").primaryKey(),
    batchId: text("batch_id").notNull().references(() => batches.id),
    routeId: text("route_id").notNull(),
    upstreamId: text("upstream_id").notNull(),
    protocol: text("protocol").notNull(),
    vendorId: text("vendor_id"),
    status: text("status").$type<"submitting" | "submitted" | "ended" | "failed">().notNull(),
    lines: integer("lines").notNull(),
    error: text("error"),
    createdAt: createdAt(),
    polledAt: ts("polled_at"),
    dueAt: ts("due_at").notNull().defaultNow(),
    cancelRequestedAt: ts("cancel_requested_at"),
    endedAt: ts("ended_at"),
  },
  (t) => [index("vendor_batches_due_idx").on(t.dueAt).where(sql`status in ('submitting', 'submitted')`), index("vendor_batches_batch_idx").on(t.batchId)],
);

/** Stripe event ids already processed (inserted in the same transaction as their work). */
export const stripeEvents = pgTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  createdAt: createdAt(),
});

/**
 * Checkout Sessions the gateway opened (top-ups and card saving): deleting an organisation
 * expires those still open at Stripe (a session lives 24 h), so nobody pays into it afterwards.
 */
export const checkoutSessions = pgTable(
  "checkout_sessions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    mode: text("mode").$type<"payment" | "setup">().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("checkout_sessions_account_idx").on(t.accountId, t.createdAt)],
);

/** `Idempotency-Key` answers, replayed for 24 h per account. */
export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    accountId: text("account_id").notNull(),
    route: text("route").notNull(),
    key: text("key").notNull(),
    /** sha256 of the request body, to refuse a reused key with a different body. */
    requestHash: text("request_hash").notNull(),
    status: integer("status"),
    responseBody: text("response_body"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.route, t.key] })],
);

/** Admin and security-relevant changes, shown in the console's audit list. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The organisation the action concerns (its admins read and export it); null = instance-wide. */
    accountId: text("account_id"),
    actorUserId: text("actor_user_id"),
    /** "cli" when done from the admin CLI. */
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    details: jsonb("details").$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_created_idx").on(t.createdAt), index("audit_log_account_idx").on(t.accountId, t.id)],
);

/**
 * Prompts and answers of organisations that switched content logging on (docs/content-logs.md,
 * decision 0059): redacted, then sealed with lib/crypto.ts; written after the reply. Deleted
 * after the organisation's retention by the retention job.
 */
export const contentLogs = pgTable(
  "content_logs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    requestId: text("request_id").notNull(),
    keyId: text("key_id"),
    userId: text("user_id"),
    model: text("model"),
    stream: boolean("stream").notNull().default(false),
    /** Size of the sealed JSON before sealing (for the export's and the inspector's limits). */
    bytes: integer("bytes").notNull(),
    /** `encryptSecret(JSON of ContentRecord)`. */
    sealed: text("sealed").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("content_logs_request_idx").on(t.accountId, t.requestId), index("content_logs_created_idx").on(t.createdAt)],
);

/**
 * Single-use links sent by email (password reset, email verification). Only a keyed hash of the
 * token is stored; a link is spent by one conditional UPDATE of `used_at` (decision 0017).
 */
export const emailTokens = pgTable(
  "email_tokens",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose").$type<"password_reset" | "verify_email">().notNull(),
    /** HMAC-SHA256(session secret, token), base64url. */
    tokenHash: text("token_hash").notNull(),
    /** The address the link was sent to (verification confirms this one, not a later change). */
    email: text("email").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("email_tokens_hash_idx").on(t.tokenHash), index("email_tokens_user_idx").on(t.userId, t.purpose)],
);

/** A batch of redeem codes an admin made: each code credits `amountMicroUsd` once per account. */
export const redeemBatches = pgTable("redeem_batches", {
  id: text("id").primaryKey(),
  amountMicroUsd: micro("amount_micro_usd").notNull(),
  /** How many accounts may redeem each code (1 = single use). */
  maxRedemptions: integer("max_redemptions").notNull(),
  codeCount: integer("code_count").notNull(),
  expiresAt: ts("expires_at"),
  note: text("note"),
  createdByUserId: text("created_by_user_id"),
  /** Codes of a disabled batch are refused. */
  disabled: boolean("disabled").notNull().default(false),
  /** A person (user) redeems each code once, whichever of their organisations they redeem it for. */
  oncePerUser: boolean("once_per_user").notNull().default(true),
  createdAt: createdAt(),
});

export const redeemCodes = pgTable(
  "redeem_codes",
  {
    id: text("id").primaryKey(),
    batchId: text("batch_id")
      .notNull()
      .references(() => redeemBatches.id),
    /** HMAC-SHA256(code secret, normalized code): what a redemption looks up. */
    codeHash: text("code_hash").notNull(),
    /** The code sealed with ENCRYPTION_KEY, so admins can export the batch again. */
    codeSealed: text("code_sealed").notNull(),
    redemptions: integer("redemptions").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("redeem_codes_hash_idx").on(t.codeHash), index("redeem_codes_batch_idx").on(t.batchId)],
);

/** One row per (code, account): the unique index is what makes "once per account" hold. */
export const redemptions = pgTable(
  "redemptions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    codeId: text("code_id")
      .notNull()
      .references(() => redeemCodes.id),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    userId: text("user_id"),
    amountMicroUsd: micro("amount_micro_usd").notNull(),
    ledgerEntryId: bigint("ledger_entry_id", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("redemptions_code_account_idx").on(t.codeId, t.accountId),
    index("redemptions_account_idx").on(t.accountId),
    // "Once per person": looked up under the code's row lock (lib/redeem/redeem.ts).
    index("redemptions_code_user_idx").on(t.codeId, t.userId),
  ],
);

/** Circuit changes of upstream entries (lib/gateway/health), written once by the instance that announced them. */
export const upstreamHealthEvents = pgTable(
  "upstream_health_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    modelId: text("model_id").notNull(),
    upstreamId: text("upstream_id").notNull(),
    state: text("state").$type<"open" | "closed">().notNull(),
    reason: text("reason").notNull(),
    /** Failed share of the window when it changed, in percent. */
    errorPercent: integer("error_percent").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    /** Status, code and redacted message of the last failure. */
    lastError: jsonb("last_error").$type<{ status: number; code: string; message: string; at: number }>(),
    openUntil: ts("open_until"),
    createdAt: createdAt(),
  },
  (t) => [index("upstream_health_events_entry_idx").on(t.modelId, t.upstreamId, t.createdAt)],
);

/** Operator settings set in the admin console, one row per name (e.g. `upstream_webhook`). */
export const gatewaySettings = pgTable("gateway_settings", {
  name: text("name").primaryKey(),
  value: jsonb("value").$type<Record<string, unknown>>().notNull(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * Spend budgets (migration 0013, decision 0032): the api_keys trigger keeps `window`, `spent`
 * and `held` with every money change of a key the budget covers, refuses a hold past
 * `limit_micro_usd` (SQLSTATE GC002) and raises the soft, 80 % and 100 % alerts once per window.
 * `window` is the day (`2026-11-27`), ISO week (`2026-W48`) or month (`2026-11`) it counts, in the
 * organisation's time zone; a change in a new window starts from zero.
 */
export const budgets = pgTable("budgets", {
  id: text("id").primaryKey(),
  accountId: text("account_id")
    .notNull()
    .references(() => accounts.id),
  scope: text("scope").$type<BudgetScope>().notNull(),
  userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
  keyId: text("key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
  period: text("period").$type<BudgetPeriod>().notNull(),
  /** Hard limit: a hold past it is refused (402 budget_exceeded); null = alerts only. */
  limitMicroUsd: micro("limit_micro_usd"),
  /** Soft limit: crossing it alerts; nothing is refused. */
  softLimitMicroUsd: micro("soft_limit_micro_usd"),
  window: text("window").notNull().default(""),
  spentMicroUsd: micro("spent_micro_usd").notNull().default(0),
  heldMicroUsd: micro("held_micro_usd").notNull().default(0),
  createdAt: createdAt(),
});

/**
 * One auto top-up per balance crossing (migration 0014, decision 0029): inserted by the accounts
 * trigger, charged once by the worker (claimed with `locked_until`, Stripe Idempotency-Key = id),
 * credited through the Stripe fulfilment path (ledger key `stripe:pi:<payment intent>`).
 */
export const autoTopups = pgTable(
  "auto_topups",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    epoch: integer("epoch").notNull(),
    amountMicroUsd: micro("amount_micro_usd").notNull(),
    state: text("state").$type<AutoTopupState>().notNull().default("pending"),
    lockedUntil: ts("locked_until"),
    paymentIntentId: text("payment_intent_id"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("auto_topups_crossing_idx").on(t.accountId, t.epoch),
    index("auto_topups_due_idx").on(t.createdAt).where(sql`state in ('pending', 'charging')`),
    index("auto_topups_account_idx").on(t.accountId, t.createdAt),
  ],
);

export const ALERT_KINDS = ["low_balance", "budget_soft", "budget_80", "budget_100", "member_cap", "auto_topup_succeeded", "auto_topup_failed", "auto_topup_card_removed", "test"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/**
 * One alert per crossing (decision 0029): `dedupe_key` is unique, so raising the same crossing
 * twice (concurrent requests, several instances) inserts one row. Email and webhook delivery are
 * claimed from here by the worker (email_state pending → sending → sent; webhook_state pending →
 * queued, a webhook_deliveries row of kind "alert").
 */
export const alerts = pgTable(
  "alerts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    kind: text("kind").$type<AlertKind>().notNull(),
    dedupeKey: text("dedupe_key").notNull().unique(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    emailState: text("email_state").$type<"pending" | "sending" | "sent" | "none" | "off">().notNull().default("pending"),
    emailLockedUntil: ts("email_locked_until"),
    webhookState: text("webhook_state").$type<"pending" | "queued" | "none">().notNull().default("pending"),
    createdAt: createdAt(),
  },
  (t) => [
    index("alerts_account_idx").on(t.accountId, t.createdAt),
    index("alerts_email_due_idx")
      .on(t.createdAt)
      .where(sql`email_state in ('pending', 'sending')`),
    index("alerts_webhook_due_idx")
      .on(t.createdAt)
      .where(sql`webhook_state = 'pending'`),
  ],
);

/**
 * An organisation's single sign-on (decisions 0061, 0062): its OIDC client and SAML identity
 * provider, the role a person signing in through them (or provisioned by SCIM) gets, and whether
 * members must sign in through it (password sign-in refused). Secrets are encrypted (lib/crypto.ts).
 */
export const orgIdentity = pgTable("org_identity", {
  accountId: text("account_id").primaryKey().references(() => accounts.id),
  defaultRole: text("default_role").$type<OrgRole>().notNull().default("member"),
  ssoRequired: boolean("sso_required").notNull().default(false),
  oidcIssuer: text("oidc_issuer"),
  oidcClientId: text("oidc_client_id"),
  oidcClientSecretEncrypted: text("oidc_client_secret_encrypted"),
  /** The IdP's single sign-on URL (HTTP-Redirect binding), entity id and signing certificate (PEM). */
  samlEntryPoint: text("saml_entry_point"),
  samlIdpIssuer: text("saml_idp_issuer"),
  samlIdpCert: text("saml_idp_cert"),
  /** SCIM group display name → organisation role (never owner). */
  groupRoles: jsonb("group_roles").$type<Record<string, OrgRole>>().notNull().default({}),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * Email domains an organisation's identity provider speaks for: one organisation per domain,
 * added by a gateway admin only (an organisation claiming someone else's domain could otherwise
 * sign in as that domain's users through an IdP it controls; decision 0062).
 */
export const ssoDomains = pgTable(
  "sso_domains",
  {
    /** Lower-case, no leading "@". */
    domain: text("domain").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    addedByUserId: text("added_by_user_id"),
    createdAt: createdAt(),
  },
  (t) => [index("sso_domains_account_idx").on(t.accountId)],
);

/** SCIM bearer tokens, one organisation each; only sha256 of the token is stored. */
export const scimTokens = pgTable(
  "scim_tokens",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    hash: text("hash").notNull(),
    /** Display only: `scim_` and the next few characters. */
    prefix: text("prefix").notNull(),
    createdByUserId: text("created_by_user_id"),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("scim_tokens_hash_idx").on(t.hash), index("scim_tokens_account_idx").on(t.accountId)],
);

/** A SCIM User resource: one person provisioned into one organisation (lib/scim). */
export const scimUsers = pgTable(
  "scim_users",
  {
    /** The SCIM `id` (a UUID). */
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** The user's email, lower-cased. */
    userName: text("user_name").notNull(),
    externalId: text("external_id"),
    givenName: text("given_name"),
    familyName: text("family_name"),
    displayName: text("display_name"),
    /** false: the membership is gone and its keys revoked; true again re-adds the member. */
    active: boolean("active").notNull().default(true),
    /** Bumped on every change: the ETag (`W/"n"`) and meta.version. */
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("scim_users_account_user_idx").on(t.accountId, t.userId), uniqueIndex("scim_users_account_name_idx").on(t.accountId, t.userName)],
);

/** A SCIM Group resource; its display name maps to a role through org_identity.group_roles. */
export const scimGroups = pgTable(
  "scim_groups",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    displayName: text("display_name").notNull(),
    externalId: text("external_id"),
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("scim_groups_account_name_idx").on(t.accountId, t.displayName)],
);

export const scimGroupMembers = pgTable(
  "scim_group_members",
  {
    groupId: text("group_id").notNull().references(() => scimGroups.id, { onDelete: "cascade" }),
    scimUserId: text("scim_user_id").notNull().references(() => scimUsers.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ name: "scim_group_members_pk", columns: [t.groupId, t.scimUserId] }), index("scim_group_members_user_idx").on(t.scimUserId)],
);

/** SAML assertion ids already accepted, kept until the assertion would have expired anyway. */
export const samlReplays = pgTable("saml_replays", {
  assertionId: text("assertion_id").primaryKey(),
  expiresAt: ts("expires_at").notNull(),
});

/**
 * The exact response cache where no Redis is configured (decision 0057): one answer per key
 * (a hash of the organisation, protocol, model, canonical request and stream flag), sealed with
 * lib/crypto.ts, read only before `expires_at`; expired rows are deleted by the cleanup job.
 */
export const responseCache = pgTable(
  "response_cache",
  {
    key: text("key").primaryKey(),
    accountId: text("account_id").notNull(),
    /** The sealed answer (encryptSecret of its JSON). */
    value: text("value").notNull(),
    expiresAt: ts("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("response_cache_expires_idx").on(t.expiresAt)],
);
