/**
 * The value vocabulary of the database columns (roles, protocols, kinds, prices, states): plain
 * types and constants with no imports, so db/schema.ts and the browser (components/) share one
 * definition without the browser reaching the database module.
 */

export const ORG_ROLES = ["owner", "admin", "member", "billing"] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/**
 * The upstream protocols, declared once: the provider registry's declaration half (its
 * implementations are lib/gateway/upstreams/registry.ts, which must give each declared kind an
 * adapter). What each serves, which settings and secrets it takes and needs, whether its base
 * URL has a default. The config file's schema, the admin API and editor, and the dispatch derive
 * from here; adding a protocol is one entry here, its adapters, and one entry in the registry
 * (docs/architecture.md, "Adding an upstream protocol").
 */
export const PROVIDERS = {
  openai: { label: "OpenAI-compatible (Chat Completions)", kinds: ["text", "embedding", "image", "speech", "transcription"], settings: ["vendor", "batches"], secrets: [], required: [], defaultBaseUrl: false },
  "openai-responses": { label: "OpenAI Responses API", kinds: ["text"], settings: [], secrets: [], required: [], defaultBaseUrl: false },
  anthropic: { label: "Anthropic Messages", kinds: ["text"], settings: ["batches"], secrets: [], required: [], defaultBaseUrl: false },
  gemini: { label: "Google Gemini API", kinds: ["text", "embedding", "image", "speech", "transcription"], settings: ["batches"], secrets: [], required: [], defaultBaseUrl: false },
  "gemini-interactions": { label: "Google Interactions API", kinds: ["text"], settings: [], secrets: [], required: [], defaultBaseUrl: false },
  "openai-video": { label: "OpenAI Videos API", kinds: ["video"], settings: [], secrets: [], required: [], defaultBaseUrl: false },
  "azure-openai": { label: "Azure OpenAI", kinds: ["text", "embedding", "image"], settings: ["apiVersion", "textApi", "tenantId", "clientId", "tokenUrl"], secrets: ["clientSecret"], required: [], defaultBaseUrl: false },
  bedrock: { label: "AWS Bedrock", kinds: ["text", "embedding"], settings: ["region", "claudeApi", "guardrailId", "guardrailVersion", "guardrailTrace"], secrets: ["accessKeyId", "secretAccessKey", "sessionToken"], required: ["region"], defaultBaseUrl: true },
  vertex: { label: "Google Vertex AI", kinds: ["text"], settings: ["project", "region", "tokenUrl"], secrets: ["serviceAccount"], required: ["project", "region"], defaultBaseUrl: true },
  "gemini-veo": { label: "Veo (Gemini API)", kinds: ["video"], settings: [], secrets: [], required: [], defaultBaseUrl: true },
  "vertex-veo": { label: "Veo (Vertex AI)", kinds: ["video"], settings: ["project", "region", "tokenUrl"], secrets: ["serviceAccount"], required: ["project", "region"], defaultBaseUrl: true },
  kling: { label: "Kling", kinds: ["video"], settings: [], secrets: ["accessKeyId", "secretAccessKey"], required: ["accessKeyId", "secretAccessKey"], defaultBaseUrl: true },
  seedance: { label: "Seedance (BytePlus ModelArk)", kinds: ["video"], settings: [], secrets: [], required: [], defaultBaseUrl: true },
  bfl: { label: "Black Forest Labs (FLUX)", kinds: ["image"], settings: [], secrets: [], required: [], defaultBaseUrl: true },
  demo: { label: "Built-in demo", kinds: ["text", "embedding", "image", "video", "speech", "transcription"], settings: [], secrets: [], required: [], defaultBaseUrl: true },
} as const satisfies Record<string, ProviderDeclaration>;

export interface ProviderDeclaration {
  label: string;
  kinds: readonly ModelKind[];
  /** Its non-secret settings (UpstreamSettings keys); any other is refused naming it. */
  settings: readonly (keyof UpstreamSettings)[];
  /** Its secrets beyond `apiKey` (UpstreamCredentials keys), kept encrypted together. */
  secrets: readonly (keyof UpstreamCredentials)[];
  /** Which of those an upstream of this protocol must have. */
  required: readonly (keyof UpstreamSettings | keyof UpstreamCredentials)[];
  /** The base URL may be left out (the vendor's or the cloud's regional endpoint, the built-in demo). */
  defaultBaseUrl: boolean;
}

export type UpstreamProtocol = keyof typeof PROVIDERS;
export const UPSTREAM_PROTOCOLS = Object.keys(PROVIDERS) as [UpstreamProtocol, ...UpstreamProtocol[]];
/** The protocols that take a setting or secret (for "only … upstreams have it"). */
export function protocolsWith(field: keyof UpstreamSettings | keyof UpstreamCredentials): UpstreamProtocol[] {
  return UPSTREAM_PROTOCOLS.filter((p) => (PROVIDERS[p].settings as readonly string[]).includes(field) || (PROVIDERS[p].secrets as readonly string[]).includes(field));
}

/** The OpenAI-compatible vendors an `openai` upstream can name (lib/gateway/upstreams/openai-vendors.ts). */
export const OPENAI_VENDORS = ["openai", "xai", "deepseek", "qwen", "moonshot", "zhipu", "mistral", "groq", "together", "fireworks", "openrouter"] as const;
export type OpenAIVendor = (typeof OPENAI_VENDORS)[number];

/** An upstream's non-secret settings; absent = the protocol's default. */
export interface UpstreamSettings {
  /** `openai` upstreams: whose dialect of Chat Completions it speaks (default "openai"). */
  vendor?: OpenAIVendor;
  /**
   * `openai`, `anthropic`, `gemini`: who runs batch lines served here — the vendor's own batch API
   * ("native", its batch price) or the gateway line by line ("gateway"). Absent: "native" on the
   * vendor's own host, "gateway" elsewhere (decision 0070).
   */
  batches?: "native" | "gateway";
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
  /** `bedrock`: Claude models through Converse (the default) or InvokeModel with Anthropic's Messages body. */
  claudeApi?: "converse" | "invoke";
  /** `bedrock`: a Bedrock guardrail applied to every Converse call (its id or ARN, its version, and whether its trace is asked for). */
  guardrailId?: string;
  guardrailVersion?: string;
  guardrailTrace?: "enabled" | "disabled" | "enabled_full";
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

export type ModelKind = "text" | "embedding" | "image" | "video" | "speech" | "transcription";
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
  /**
   * Video: per second of video, one amount for every resolution or keyed by resolution
   * (`720p`, `1080p`), with a `:audio` suffix where sound changes the price (decision 0065). Speech:
   * per second of audio produced; transcription: per second uploaded (decoded by the gateway); one amount.
   */
  perSecond?: number | Record<string, number>;
  /** Text models: the share taken off every token price for batch lines (0.5 = half price); absent = none. */
  batchDiscount?: number;
  /** Speech and transcription models that report usage: audio tokens in and out (docs/audio.md). */
  audioInputPerMTok?: number;
  audioOutputPerMTok?: number;
  /** Speech models priced by the input text (tts-1 style), per million characters. */
  perMCharacters?: number;
  /**
   * Image models billed from the vendor's usage (docs/images.md): image tokens in (absent = the
   * input price) and out; text prompt tokens at inputPerMTok, text output tokens at outputPerMTok
   * (absent = the image output price). perImage stays the worst case one image is held at.
   */
  imageInputPerMTok?: number;
  imageOutputPerMTok?: number;
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
export type BatchStatus = "validating" | "in_progress" | "finalizing" | "completed" | "failed" | "expired" | "cancelling" | "cancelled";

/** An image input: a URL the upstream fetches, or bytes uploaded with the request. */
/** `role` says what a video model does with the image: the first frame (default), the last frame, or a reference. */
export type ImageRole = "first_frame" | "last_frame" | "reference";
export type ImageInput = ({ kind: "url"; url: string } | { kind: "bytes"; base64: string; mimeType: string; filename: string }) & { role?: ImageRole };

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
  /** `720p`, `1080p` …: asked for, derived from `size`, or the upstream adapter's default for the model. */
  resolution?: string | null;
  negativePrompt?: string | null;
  /** Sound on or off; null = the model's default. */
  audio?: boolean | null;
}

/** Content logging (docs/content-logs.md): nothing, the request log only (the default behaviour), or prompts and answers. Ordered: a key may only narrow. */
export const CONTENT_LOG_MODES = ["off", "metadata", "full"] as const;
export type ContentLogMode = (typeof CONTENT_LOG_MODES)[number];
/** Built-in redactions of content logs. */
export const CONTENT_LOG_BUILTINS = ["api_keys", "card_numbers", "emails"] as const;
export type ContentLogBuiltin = (typeof CONTENT_LOG_BUILTINS)[number];
/**
 * What a request's content log applies, resolved with the key (null on the principal = nothing
 * is written): the organisation's own patterns and the built-ins it keeps on.
 */
export interface ContentLogPolicy {
  readonly redact: readonly string[];
  readonly builtins: readonly string[];
}
