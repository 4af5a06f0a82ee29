/**
 * The value vocabulary of the database columns (roles, protocols, kinds, prices, states): plain
 * types and constants with no imports, so db/schema.ts and the browser (components/) share one
 * definition without the browser reaching the database module.
 */

export const ORG_ROLES = ["owner", "admin", "member", "billing"] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export type UpstreamProtocol = "openai" | "openai-responses" | "anthropic" | "gemini" | "openai-video" | "azure-openai" | "bedrock" | "vertex" | "demo";

/** The OpenAI-compatible vendors an `openai` upstream can name (lib/gateway/upstreams/openai-vendors.ts). */
export const OPENAI_VENDORS = ["openai", "xai", "deepseek", "qwen", "moonshot", "zhipu", "mistral", "groq", "together", "fireworks", "openrouter"] as const;
export type OpenAIVendor = (typeof OPENAI_VENDORS)[number];

/** An upstream's non-secret settings; absent = the protocol's default. */
export interface UpstreamSettings {
  /** `openai` upstreams: whose dialect of Chat Completions it speaks (default "openai"). */
  vendor?: OpenAIVendor;
  /** `azure-openai`: "v1" (the default: /openai/v1/…) or a dated version (/openai/deployments/{deployment}/…?api-version=). */
  apiVersion?: string;
  /** `azure-openai`: which API text models are served through (default "chat"). */
  textApi?: "chat" | "responses";
  /** `azure-openai` with Entra ID: the app registration's tenant and client ids, and the token endpoint when not Microsoft's. */
  tenantId?: string;
  clientId?: string;
  tokenUrl?: string;
  /** `bedrock`: the AWS region (bedrock-runtime.{region}.amazonaws.com unless baseUrl says otherwise); `vertex`: the Google Cloud location. */
  region?: string;
  /** `vertex`: the Google Cloud project id. */
  project?: string;
}

/** An upstream's secrets beyond `apiKey`, stored encrypted as one JSON document. */
export interface UpstreamCredentials {
  /** `azure-openai` with Entra ID: the client secret of the app registration. */
  clientSecret?: string;
  /** `bedrock` with static AWS keys (none of them: the AWS SDK's default credential chain). */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** `vertex`: the service account's key file (JSON text). */
  serviceAccount?: string;
}

export type ModelKind = "text" | "embedding" | "image" | "video";
export type VideoFamily = "t2v" | "i2v" | "r2v" | "extend" | "second" | "third";

/** Prices in integer micro-USD. Token prices are per million tokens. */
export interface ModelPrice {
  inputPerMTok?: number;
  outputPerMTok?: number;
  /** Text models: prompt tokens read from the upstream's cache; absent = the input price. */
  cacheReadPerMTok?: number;
  /** Text models: prompt tokens written to a 5-minute cache; absent = the input price. */
  cacheWrite5mPerMTok?: number;
  /** Text models: prompt tokens written to a 1-hour cache; absent = the input price. */
  cacheWrite1hPerMTok?: number;
  /** Text models that price reasoning apart; absent = the output price. */
  reasoningPerMTok?: number;
  /** Keyed by `quality:size` (e.g. `high:1536x1024`), or `*` for a flat price. */
  perImage?: Record<string, number>;
  perVideo?: number;
  perSecond?: number;
}

/** One entry of a request's route (request_logs.route_trace; built by lib/gateway/health/trace.ts). */
export interface RouteTraceEntry {
  upstream: string;
  priority: number;
  weight: number;
  /** served | failed (every attempt on it failed) | skipped (circuit) | untried (an earlier one answered). */
  result: "served" | "failed" | "skipped" | "untried";
  /** Why it was skipped, or its last failure ("502 upstream_error"). */
  reason?: string;
  attempts?: number;
  /** This attempt was the half-open circuit's probe. */
  probe?: boolean;
}

export const INPUT_MODALITIES = ["text", "image", "pdf", "audio", "video"] as const;
export type InputModality = (typeof INPUT_MODALITIES)[number];

export const BUDGET_SCOPES = ["organisation", "member", "key"] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
export const BUDGET_PERIODS = ["day", "week", "month"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export type AutoTopupState = "pending" | "charging" | "succeeded" | "failed" | "requires_action";

export type TaskStatus = "queued" | "in_progress" | "completed" | "failed";

/** An image input: a URL the upstream fetches, or bytes uploaded with the request. */
export type ImageInput = { kind: "url"; url: string } | { kind: "bytes"; base64: string; mimeType: string; filename: string };

/** What a task asks its upstream for (stored in tasks.params until the upstream has it). */
export interface VideoJob {
  prompt: string;
  /** null for extend (the source video's duration). */
  seconds: string | null;
  /** First family: `size`; second and third: `aspectRatio`. */
  size: string | null;
  aspectRatio: string | null;
  images: ImageInput[];
  videoUrl: string | null;
}
