/**
 * The process-wide webhook URL policy (PUBLIC_BASE_URL, WEBHOOK_ALLOW_HOSTS) and the guarded
 * dispatcher deliveries go through. Tests inject their own resolver and connector.
 */
import type { Dispatcher } from "undici";
import { env } from "../env";
import { logger } from "../logger";
import { createGuardedAgent } from "./guarded-dispatcher";
import { makePolicy, type Resolver, type WebhookUrlPolicy } from "./ssrf";
import { processSingleton } from "../process-singleton";

type Policy = { policy: WebhookUrlPolicy; dispatcher: Dispatcher };
const slot = processSingleton("gateway.webhookPolicy", () => ({ current: undefined as Policy | undefined }));

export function webhookPolicy(): Policy {
  const g = slot();
  if (!g.current) {
    const e = env();
    const policy = makePolicy({ publicBaseUrl: e.publicBaseUrl, allowHosts: e.WEBHOOK_ALLOW_HOSTS });
    if (e.WEBHOOK_ALLOW_HOSTS.length) {
      logger().warn({ allowHosts: e.WEBHOOK_ALLOW_HOSTS }, "WEBHOOK_ALLOW_HOSTS is set: webhooks may reach these private host:port pairs");
    }
    g.current = { policy, dispatcher: createGuardedAgent({ policy, connectTimeoutMs: e.WEBHOOK_TIMEOUT_MS }) };
  }
  return g.current;
}

/** For tests: a stubbed resolver (and optionally a fenced connector) for this process. */
export function setWebhookPolicy(v: Policy | undefined): void {
  slot().current = v;
}

export function policyWithResolver(resolve: Resolver): WebhookUrlPolicy {
  const e = env();
  return makePolicy({ publicBaseUrl: e.publicBaseUrl, allowHosts: e.WEBHOOK_ALLOW_HOSTS, resolve });
}
