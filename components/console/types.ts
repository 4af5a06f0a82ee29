/** Shapes of the console JSON routes as the browser receives them (dates are ISO strings). */
// The server's view types (lib/views.ts, declarations only, importing no server module): the
// server functions are declared to return them, so the two sides cannot drift. Only request
// bodies and filter forms, which the browser builds itself, are written here.
import type { Capability } from "@/lib/orgs/roles";
import type { Wire } from "@/lib/console/wire";
import type { OrgRole } from "@/lib/values";
import type {
  AdminAliasView,
  AdminGuardrailView,
  AdminModelView,
  AdminUpstreamView,
  AdminUserView,
  AuditView,
  BalanceView,
  BillingConfigView,
  CheckoutStatusView,
  CreatedKey,
  DailySpend,
  DeprecatedCallerView,
  KeyView,
  LedgerView,
  OrgSummary,
  OverviewView,
  RequestView,
  ResponsesStorageView,
  SessionUser,
  TaskView,
  UpstreamHealthView as ServerUpstreamHealthView,
  UpstreamWebhookSavedView,
  UpstreamWebhookTestedView,
  UsageTotalsView,
  WebhookAttemptView,
  WebhookDeliveryView,
  WebhookTestEvent,
} from "@/lib/views";

export type { KeyView };
export type { AvailableModel, BatchSummaryView as BatchRow } from "@/lib/views";
export type RequestRow = RequestView;

export interface Page<Row, Cursor> {
  items: Row[];
  nextCursor: Cursor | null;
}

export type SessionUserView = SessionUser;
export type { OrgRole, Capability, OrgSummary };

export type Balance = Wire<BalanceView>;

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

export type Totals = Wire<UsageTotalsView>;

export type { DailySpend };

export type Overview = Wire<OverviewView>;

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

export type TaskRow = Wire<TaskView>;

export type Billing = Balance & Wire<BillingConfigView>;

export type ResponsesStorage = Wire<ResponsesStorageView>;

export type CheckoutStatus = Wire<CheckoutStatusView>;

export type AdminUser = Wire<AdminUserView>;

export type AdminUpstream = Wire<AdminUpstreamView>;

export type AdminAlias = Wire<AdminAliasView>;
export type AdminGuardrail = Wire<AdminGuardrailView>;
export type AdminModel = Wire<AdminModelView>;
export type DeprecatedCaller = Wire<DeprecatedCallerView>;

export type UpstreamHealthView = Wire<ServerUpstreamHealthView>;
export type UpstreamWebhookSaved = Wire<UpstreamWebhookSavedView>;
export type UpstreamWebhookTested = Wire<UpstreamWebhookTestedView>;
/** Integer micro-USD prices of a model (lib/values.ts ModelPrice). */
export type ModelPrice = AdminModel["price"];

export type AuditRow = Wire<AuditView>;

export interface AuditFilters {
  actor?: string;
  action?: string;
  target?: string;
}

export type WebhookAttempt = WebhookAttemptView;

export type WebhookDelivery = WebhookDeliveryView;

export type TestEventResult = WebhookTestEvent;
