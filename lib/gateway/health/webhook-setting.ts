/**
 * The operator's upstream-health webhook (Admin → Upstreams): one URL and its signing secret,
 * stored in gateway_settings (the secret encrypted). The URL passes the task webhooks' SSRF
 * rules when saved and again at every attempt.
 */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { DB } from "../../../db/client";
import { gatewaySettings } from "../../../db/schema";
import { decryptSecret, encryptSecret } from "../../crypto";
import { processSingleton } from "../../process-singleton";
import { checkOperatorWebhookUrl } from "../../tasks/operator-events";
import type { Result } from "../../result";

const NAME = "upstream_webhook";
const CACHE_MS = 10_000;

export interface OperatorWebhook {
  url: string;
  secret: string | null;
}

const cache = processSingleton("gateway.upstreamWebhook", () => ({ value: undefined as OperatorWebhook | null | undefined, at: 0 }));

export async function getOperatorWebhook(db: DB, fresh = false): Promise<OperatorWebhook | null> {
  const c = cache();
  if (!fresh && c.value !== undefined && Date.now() - c.at < CACHE_MS) return c.value;
  const [row] = await db.select().from(gatewaySettings).where(eq(gatewaySettings.name, NAME));
  const v = row?.value as { url?: string; secretEncrypted?: string | null } | undefined;
  let secret: string | null = null;
  try {
    secret = v?.secretEncrypted ? decryptSecret(v.secretEncrypted) : null;
  } catch {
    secret = null;
  }
  c.value = v?.url ? { url: v.url, secret } : null;
  c.at = Date.now();
  return c.value;
}

/** What was saved (a new secret shown once), or why the URL is refused. */
export type SaveResult = Result<{ url: string | null; secret?: string }, string>;

/** Sets (or with null clears) the URL. A new secret is made on the first save or when asked, and returned once. */
export async function saveOperatorWebhook(db: DB, input: { url: string | null; newSecret?: boolean }): Promise<SaveResult> {
  if (input.url === null || input.url === "") {
    await db.delete(gatewaySettings).where(eq(gatewaySettings.name, NAME));
    cache().value = undefined;
    return { ok: true, value: { url: null } };
  }
  const verdict = await checkOperatorWebhookUrl(input.url);
  if (!verdict.ok) return verdict;
  const current = await getOperatorWebhook(db, true);
  const secret = input.newSecret || !current?.secret ? `whsec_${randomBytes(24).toString("base64url")}` : null;
  const value = { url: input.url, secretEncrypted: secret ? encryptSecret(secret) : encryptSecret(current!.secret!) };
  await db
    .insert(gatewaySettings)
    .values({ name: NAME, value, updatedAt: new Date() })
    .onConflictDoUpdate({ target: gatewaySettings.name, set: { value, updatedAt: new Date() } });
  cache().value = undefined;
  return { ok: true, value: { url: input.url, ...(secret ? { secret } : {}) } };
}
