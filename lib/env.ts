/**
 * Environment variables, parsed once. Every public name here is documented in docs/configuration.md.
 * Reading is lazy so tests can set process.env before first use. The only module that reads
 * process.env (lib/process-env.test.ts keeps it so): the other readers below serve callers that
 * must not fail on an unrelated invalid variable (the logger, tracing) or need arbitrary names.
 */
import path from "node:path";
import { z } from "zod";
import { parseTrustProxy } from "./trust-proxy";

const bool = (dflt: boolean) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? dflt : !["0", "false", "no", "off"].includes(v.toLowerCase())));
const int = (dflt: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return dflt;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) {
        ctx.addIssue({ code: "custom", message: `must be a non-negative integer, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });
const list = z
  .string()
  .optional()
  .transform((v) => (v ? v.split(",").map((s) => s.trim()).filter(Boolean) : []));

const envSchema = z.object({
  PORT: int(3000),
  DATABASE_URL: z.string().optional().transform((v) => v || undefined),
  DATABASE_POOL_SIZE: int(10),
  /** An unpooled address of the same database, for what a transaction-mode pooler cannot carry: LISTEN and migrations' session lock (docs/deploy.md). */
  DATABASE_DIRECT_URL: z.string().optional().transform((v) => v || undefined),
  /** Milliseconds, set on every gateway connection (0 = the server's own setting); docs/deploy.md, "Database safety". */
  DATABASE_LOCK_TIMEOUT_MS: int(5_000),
  DATABASE_STATEMENT_TIMEOUT_MS: int(60_000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: int(15_000),
  /** Serverless mode (docs/decisions/0042): on with SERVERLESS=1, or when Vercel sets VERCEL. */
  SERVERLESS: bool(false),
  VERCEL: z.string().optional().transform((v) => !!v && v !== "0"),
  /** Bearer token of GET /api/cron/tick (unset: the route answers 404). */
  CRON_SECRET: z.string().optional().transform((v) => v || undefined),
  /** How long one cron pass may start new work (seconds); keep it under the function's duration limit. */
  CRON_TIME_BUDGET_S: int(45),
  /** Files (/v1/files): the largest upload, in MB (OpenAI's own limit is 512). */
  FILES_MAX_MB: int(512),
  /** Batch lines one instance runs at once (the rest of its capacity stays with interactive traffic). */
  BATCH_CONCURRENCY: int(4),
  /** How long a runner holds a claimed batch line before another may take it (must outlast one line's upstream calls). */
  BATCH_LINE_LEASE_S: int(600),
  /** How often a batch submitted to a vendor's own batch API is polled (decision 0070). */
  BATCH_VENDOR_POLL_S: int(60),
  DATA_DIR: z.string().optional().transform((v) => path.resolve(v || ".data")),
  GATEWAY_CONFIG: z.string().optional().transform((v) => v || undefined),
  PUBLIC_BASE_URL: z.string().optional().transform((v) => v || undefined),
  AUTH_SECRET: z.string().optional().transform((v) => v || undefined),
  STRIPE_SECRET_KEY: z.string().optional().transform((v) => v || undefined),
  STRIPE_WEBHOOK_SECRET: z.string().optional().transform((v) => v || undefined),
  STRIPE_API_BASE: z.string().optional().transform((v) => v || undefined),
  ADMIN_EMAILS: list.transform((l) => l.map((e) => e.toLowerCase())),
  REDIS_URL: z.string().optional().transform((v) => v || undefined),
  ENCRYPTION_KEY: z.string().optional().transform((v) => v || undefined),
  RUN_WORKERS: bool(true),
  TASK_TIMEOUT_S: int(3600),
  DEFAULT_KEY_RPM: int(600),
  METRICS_TOKEN: z.string().optional().transform((v) => v || undefined),
  LOG_LEVEL: z.string().optional().transform((v) => v || "info"),
  S3_BUCKET: z.string().optional().transform((v) => v || undefined),
  S3_ENDPOINT: z.string().optional().transform((v) => v || undefined),
  S3_REGION: z.string().optional().transform((v) => v || undefined),
  S3_ACCESS_KEY_ID: z.string().optional().transform((v) => v || undefined),
  S3_SECRET_ACCESS_KEY: z.string().optional().transform((v) => v || undefined),
  /** Seconds; above 0, video downloads redirect to a presigned bucket URL instead of streaming through. */
  S3_PRESIGNED_DOWNLOAD_TTL_S: int(0),
  /** Vercel Blob store token (Vercel sets it when a store is connected); media go there unless S3_BUCKET is set. */
  BLOB_READ_WRITE_TOKEN: z.string().optional().transform((v) => v || undefined),
  /** Vercel Blob API base URL; the same override name @vercel/blob reads. */
  VERCEL_BLOB_API_URL: z.string().optional().transform((v) => v || undefined),
  /** Azure App Service / Functions managed identity (the platform sets both): an `azure-openai` upstream without keys gets its token there. */
  IDENTITY_ENDPOINT: z.string().optional().transform((v) => v || undefined),
  IDENTITY_HEADER: z.string().optional().transform((v) => v || undefined),
  /** Google's metadata server (host[:port]) for `vertex` upstreams without a key file; default metadata.google.internal, the name Google's libraries read. */
  GCE_METADATA_HOST: z.string().optional().transform((v) => v || undefined),
  GITHUB_ID: z.string().optional().transform((v) => v || undefined),
  GITHUB_SECRET: z.string().optional().transform((v) => v || undefined),
  GOOGLE_ID: z.string().optional().transform((v) => v || undefined),
  GOOGLE_SECRET: z.string().optional().transform((v) => v || undefined),
  /** Instance-wide OIDC sign-in (docs/identity.md): the issuer URL, its client, and the button's label. */
  OIDC_ISSUER: z.string().url().optional().or(z.literal("").transform(() => undefined)),
  OIDC_CLIENT_ID: z.string().optional().transform((v) => v || undefined),
  OIDC_CLIENT_SECRET: z.string().optional().transform((v) => v || undefined),
  OIDC_NAME: z.string().optional().transform((v) => v || undefined),
  REQUEST_LOG_RETENTION_DAYS: int(90),
  RESPONSES_RETENTION_DAYS: int(30),
  TASK_POLL_INTERVAL_MS: int(10_000),
  TEXT_BODY_LIMIT_MB: int(32),
  /** `off`: every text request takes its own hold row instead of drawing on a balance lease (lib/billing/billing.ts). */
  GATEWAY_TEXT_LEASES: bool(true),
  WEBHOOK_RETRY_SCHEDULE_S: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parts = (v || "10,30,60,300,1800,7200").split(",").map((s) => Number(s.trim()));
      if (parts.some((n) => !Number.isFinite(n) || n < 0)) {
        ctx.addIssue({ code: "custom", message: `must be a comma list of seconds, got "${v}"` });
        return z.NEVER;
      }
      return parts;
    }),
  WEBHOOK_TIMEOUT_MS: int(10_000),
  /** Upstream health (lib/gateway/health/policy.ts): the window, the attempts it needs, the error percentage that opens a circuit (0 = off), the first cool-down. */
  UPSTREAM_HEALTH_WINDOW_S: int(60),
  UPSTREAM_HEALTH_MIN_REQUESTS: int(10),
  UPSTREAM_HEALTH_ERROR_PERCENT: int(50),
  UPSTREAM_HEALTH_COOLDOWN_S: int(30),
  UPSTREAM_HEALTH_MIN_CALLERS: int(3),
  WEBHOOK_ALLOW_HOSTS: list.transform((l) => l.map((h) => h.toLowerCase())),
  /** Cap on an image or document URL the gateway downloads for an upstream that needs the bytes inline (Gemini). */
  MEDIA_URL_MAX_MB: int(20),
  /** Exact host:port pairs those downloads may reach despite the private-address rule (tests on loopback). */
  MEDIA_URL_ALLOW_HOSTS: list.transform((l) => l.map((h) => h.toLowerCase())),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const r = parseTrustProxy(v);
      if (typeof r === "string") {
        ctx.addIssue({ code: "custom", message: r });
        return z.NEVER;
      }
      return r;
    }),
  /** smtp(s)://user:pass@host:port — where console email goes; unset: written to the log outside production. */
  SMTP_URL: z.string().optional().transform((v) => v || undefined),
  /** The From address of console email. */
  EMAIL_FROM: z.string().optional().transform((v) => v || undefined),
  SIGNUP: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const mode = (v || "open").trim().toLowerCase();
      if (mode !== "open" && mode !== "closed" && mode !== "invite") {
        ctx.addIssue({ code: "custom", message: `must be "open", "closed" or "invite", got "${v}"` });
        return z.NEVER;
      }
      return mode as "open" | "closed" | "invite";
    }),
  /** Sign-ups allowed per client address per hour (an office behind one NAT needs room; a test run needs more). */
  SIGNUP_LIMIT_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(20),
});

export type Env = z.infer<typeof envSchema> & {
  publicBaseUrl: string;
  /** Nothing outlives an invocation: no leases, no early settlements, jobs driven by the cron route. */
  serverless: boolean;
};

let cached: Env | undefined;

export class EnvError extends Error {}

export function env(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new EnvError(`Invalid environment variable ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  cached = { ...e, publicBaseUrl, serverless: e.SERVERLESS || e.VERCEL };
  return cached;
}

/** For tests that change process.env between cases. */
export function resetEnvCache(): void {
  cached = undefined;
}

/** NODE_ENV is "production" (read live: tests switch it). */
export function inProduction(): boolean {
  return process.env.NODE_ENV === "production";
}

/** LOG_LEVEL, unvalidated: the logger must start even when another variable is invalid (to say so). */
export function logLevel(): string {
  return process.env.LOG_LEVEL || "info";
}

/**
 * The OTEL_* variables this code reads itself (the OpenTelemetry SDK reads the rest, such as
 * OTEL_EXPORTER_OTLP_HEADERS, on its own).
 */
export function otelEnv(): { enabled: boolean; endpoint: string | undefined; serviceName: string; captureContent: boolean } {
  const e = process.env;
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || e.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  return {
    enabled: Boolean(endpoint) && e.OTEL_SDK_DISABLED !== "true",
    endpoint,
    serviceName: e.OTEL_SERVICE_NAME || "generation-gateway",
    captureContent: e.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === "true",
  };
}

/** Every variable, for `${VAR}` references in the gateway config file (lib/config/load.ts). */
export function rawEnv(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

/** Sets a variable a library reads itself (next-auth's NEXTAUTH_URL), unless the operator set it. */
export function defaultEnvFor(name: string, value: string): void {
  if (!process.env[name]) process.env[name] = value;
}
