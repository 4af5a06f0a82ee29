/**
 * Whether a key's requests get a content log, resolved once per cached key (docs/content-logs.md):
 * the organisation's mode, narrowed by the key's (a key can turn logging down, never up).
 */
import { CONTENT_LOG_MODES, type ContentLogMode, type ContentLogPolicy } from "../values";

/** The narrower of the two modes (a key's null = the organisation's). */
export function effectiveContentLogMode(org: ContentLogMode, key: ContentLogMode | null | undefined): ContentLogMode {
  if (!key) return org;
  return CONTENT_LOG_MODES.indexOf(key) < CONTENT_LOG_MODES.indexOf(org) ? key : org;
}

/** The policy a principal carries, or null when nothing is to be written. */
export function contentLogPolicy(
  account: { contentLogMode: ContentLogMode; contentLogRedact: string[]; contentLogBuiltins: string[] },
  keyMode: ContentLogMode | null | undefined,
): ContentLogPolicy | null {
  if (effectiveContentLogMode(account.contentLogMode, keyMode) !== "full") return null;
  return { redact: account.contentLogRedact, builtins: account.contentLogBuiltins };
}
