/** Shapes of the console JSON routes as the browser receives them (dates are ISO strings). */
// Server view types, shared with the server modules as type-only imports (erased from the
// browser bundle), so the two sides cannot drift. Only request bodies and filter forms, which
// the browser builds itself, are written here.
import type { SessionUser } from "@/lib/auth/session";
import type { OrgSummary } from "@/lib/auth/membership";
import type { Capability, OrgRole } from "@/lib/orgs/roles";
import type { deprecatedModelCallers, listModels, listUpstreams } from "@/lib/console/admin-catalog";
import type { setUpstreamWebhook, testUpstreamWebhook, upstreamHealthView } from "@/lib/console/upstream-health";
import type { listUsers } from "@/lib/console/admin-users";
import type { listAliases } from "@/lib/console/admin-aliases";
import type { listAudit } from "@/lib/console/audit";
import type { billingConfig, checkoutStatus } from "@/lib/console/billing";
import type { KeyView } from "@/lib/console/keys";
import type { CreatedKey } from "@/lib/keys/manage";
import type { LedgerView } from "@/lib/console/ledger";
import type { AvailableModel } from "@/lib/console/models";
import type { accountBalance, overview } from "@/lib/console/overview";
import type { responsesStorage } from "@/lib/console/responses-storage";
import type { listTasks } from "@/lib/console/tasks";
import type { DailySpend, RequestView, usageTotals } from "@/lib/console/usage";
import type { Wire } from "@/lib/console/wire";
import type { TestEventResult as ServerTestEventResult, WebhookAttemptView, WebhookDeliveryView } from "@/lib/tasks/webhook-console";

export type { KeyView };
export type RequestRow = RequestView;

export interface Page<Row, Cursor> {
  items: Row[];
  nextCursor: Cursor | null;
}

export type SessionUserView = SessionUser;
export type { OrgRole, Capability, OrgSummary };

export type Balance = Wire<Awaited<ReturnType<typeof accountBalance>>>;

export interface Me {
  user: SessionUserView;
  org: { id: string; name: string; personal: boolean; role: OrgRole; capabilities: Capability[] };
  orgs: OrgSummary[];
  /** null for roles that do not see billing (members). */
  account: Balance | null;
  /** The caller's own cap and this month's spend in the active organisation. */
  member: { monthlyCapMicroUsd: number | null; monthSpentMicroUsd: number; heldMicroUsd: number } | null;
  publicBaseUrl: string;
}

export type Totals = Wire<Awaited<ReturnType<typeof usageTotals>>>;

export type { DailySpend };

export type Overview = Wire<Awaited<ReturnType<typeof overview>>>;

export type { AvailableModel };

export interface CreateKeyBody {
  name: string;
  allowedModels: string[];
  limitUsd?: string;
  rpm?: string | number;
  expiresAt?: string;
}

export type { CreatedKey };

export type LedgerRow = LedgerView;

export interface UsageFilters {
  keyId?: string;
  /** One member's requests (roles that see everyone's usage). */
  memberId?: string;
  requestId?: string;
  source?: string;
  model?: string;
  status?: string;
  from?: string;
  to?: string;
}

export interface UsagePage extends Page<RequestRow, number> {
  totals: Totals | null;
}

export type TaskRow = Wire<Awaited<ReturnType<typeof listTasks>>>["items"][number];

export type Billing = Balance & Wire<ReturnType<typeof billingConfig>>;

export type ResponsesStorage = Wire<Awaited<ReturnType<typeof responsesStorage>>>;

export type CheckoutStatus = Wire<Awaited<ReturnType<typeof checkoutStatus>>>;

export type AdminUser = Wire<Awaited<ReturnType<typeof listUsers>>>["items"][number];

export type AdminUpstream = Wire<Awaited<ReturnType<typeof listUpstreams>>>[number];

export type AdminAlias = Wire<Awaited<ReturnType<typeof listAliases>>>[number];
export type AdminModel = Wire<Awaited<ReturnType<typeof listModels>>>[number];
export type DeprecatedCaller = Wire<Awaited<ReturnType<typeof deprecatedModelCallers>>>[number];

export type UpstreamHealthView = Wire<Awaited<ReturnType<typeof upstreamHealthView>>>;
export type UpstreamWebhookSaved = Wire<Awaited<ReturnType<typeof setUpstreamWebhook>>>;
export type UpstreamWebhookTested = Wire<Awaited<ReturnType<typeof testUpstreamWebhook>>>;
/** Integer micro-USD prices of a model (db/schema.ts ModelPrice). */
export type ModelPrice = AdminModel["price"];

export type AuditRow = Wire<Awaited<ReturnType<typeof listAudit>>>["items"][number];

export interface AuditFilters {
  actor?: string;
  action?: string;
  target?: string;
}

export type WebhookAttempt = WebhookAttemptView;

export type WebhookDelivery = WebhookDeliveryView;

export type TestEventResult = Omit<Extract<ServerTestEventResult, { ok: true }>, "ok">;
