/**
 * The guardrails in force: the config file's `guardrails` (compiled once per process at start,
 * lib/runtime/prepare.ts) and those stored in Admin → Guardrails (./stored.ts, reloaded on every
 * instance when they change). The file is authoritative: a stored entry with an id the file also
 * has is ignored. With none, `guardrailsFor` is one boolean check: the text path builds nothing for them.
 */
import type { GuardrailConfig } from "../../config/schema";
import { processSingleton } from "../../process-singleton";
import { compilePattern } from "./rules";

export type StreamPolicy = "buffer" | "holdback" | "reject";

export interface Guard {
  id: string;
  stage: "pre_request" | "post_response";
  type: "regex" | "pii" | "webhook";
  failClosed: boolean;
  stream: StreamPolicy;
  /** Characters held back under `holdback`. */
  holdback: number;
  models: ReadonlySet<string> | null;
  organisations: ReadonlySet<string> | null;
  /** API key ids (`key_…`); null: every key. */
  keys: ReadonlySet<string> | null;
  /** regex and pii: what a match does. */
  action: "block" | "redact";
  re: RegExp | null;
  webhook: { url: string; secret: string; timeoutMs: number } | null;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 2_000;

const state = processSingleton("gateway.guardrails", () => ({
  any: false,
  all: [] as Guard[],
  fromFile: [] as readonly GuardrailConfig[],
  stored: [] as readonly GuardrailConfig[],
  /** Called (not awaited) when the stored list is older than STORED_TTL_MS: a missed notification heals. */
  refresh: null as (() => void) | null,
  storedAt: 0,
}));

const STORED_TTL_MS = 60_000;

export function compileGuard(g: GuardrailConfig): Guard {
  return {
    id: g.id,
    stage: g.stage,
    type: g.type,
    failClosed: g.failPolicy !== "open",
    stream: g.stream ?? "buffer",
    holdback: g.holdback ?? 0,
    models: g.models ? new Set(g.models) : null,
    organisations: g.organisations ? new Set(g.organisations) : null,
    keys: g.keys ? new Set(g.keys) : null,
    action: g.type === "webhook" ? "block" : (g.action ?? "redact"),
    re: g.type === "regex" ? compilePattern(g.pattern, g.ignoreCase) : null,
    webhook: g.type === "webhook" ? { url: g.url, secret: g.secret, timeoutMs: g.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS } : null,
  };
}

function combine(): void {
  const s = state();
  const fileIds = new Set(s.fromFile.map((g) => g.id));
  s.all = [...s.fromFile, ...s.stored.filter((g) => !fileIds.has(g.id))].filter((g) => g.enabled !== false).map(compileGuard);
  s.any = s.all.length > 0;
}

/** Replaces the config file's guardrails (at start, and in tests). */
export function installGuardrails(list: readonly GuardrailConfig[] | undefined): void {
  state().fromFile = list ?? [];
  combine();
}

/** The config file's guardrails as given (Admin shows them read-only; their ids are taken). */
export function fileGuardrails(): readonly GuardrailConfig[] {
  return state().fromFile;
}

/** Replaces the stored (Admin) guardrails; `refresh` reloads them when they get old. */
export function installStoredGuardrails(list: readonly GuardrailConfig[], refresh?: () => void): void {
  const s = state();
  s.stored = list;
  s.storedAt = Date.now();
  if (refresh) s.refresh = refresh;
  combine();
}

/** The organisation's guardrails, or null when none apply (the common case: nothing else is built). */
export function guardrailsFor(organisation: string, keyId: string | null = null): readonly Guard[] | null {
  const s = state();
  if (s.refresh && Date.now() - s.storedAt > STORED_TTL_MS) {
    s.storedAt = Date.now(); // one reload at a time
    s.refresh();
  }
  if (!s.any) return null;
  // A key-scoped guardrail applies to that key's requests only (a playground call has no key).
  const mine = s.all.filter((g) => (!g.organisations || g.organisations.has(organisation)) && (!g.keys || (keyId !== null && g.keys.has(keyId))));
  return mine.length ? mine : null;
}
