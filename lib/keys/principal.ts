/**
 * Who is calling, as a verified key (lib/keys/verify.ts) or a console session gives it; the
 * gateway's routes receive it on their RouteContext (lib/gateway/types.ts re-exports it).
 */
import type { ContentLogPolicy } from "../values";

/** An API key, or a signed-in console user (playground, no key in the browser). */
export interface Principal {
  accountId: string;
  /** null for playground calls made with a console session. */
  keyId: string | null;
  userId: string | null;
  source: "api" | "playground";
  /** The key's allow-list; null or empty = every model the account may use. */
  keyAllowedModels: string[] | null;
  /** The account's allow-list; null = every enabled model. */
  accountAllowedModels: string[] | null;
  keyLimitMicroUsd: number | null;
  /** Requests per minute for this key; null = DEFAULT_KEY_RPM. */
  keyRpm: number | null;
  accountRpm: number | null;
  /** Tokens per minute / requests in flight for this key and for its account (absent or null = none). */
  keyTpm?: number | null;
  keyMaxConcurrent?: number | null;
  accountTpm?: number | null;
  accountMaxConcurrent?: number | null;
  /**
   * Whose stored responses and video tasks the caller reaches: null = the whole organisation,
   * else only those made by this member (lib/keys/visibility.ts, decision 0037).
   */
  memberScope: string | null;
  /** The account lets Responses API responses be stored (absent = yes). */
  storeResponses?: boolean;
  /** The key's exact response cache (decision 0057): `on` deterministic requests, `all` also temperature > 0; absent = only when a request asks. */
  responseCache?: "on" | "all" | null;
  /**
   * Prompts and answers are logged (the organisation's content logging is "full" and the key does
   * not narrow it): one object per cached key, so a request with logging off carries only null.
   */
  contentLog?: ContentLogPolicy | null;
}
