/**
 * What each organisation role may do (decision 0018). Routes ask for a capability, never a role
 * name, so a page and its API answer alike:
 * - owner: everything;
 * - admin: everything but transferring ownership or deleting the organisation;
 * - billing: balance, top-ups, ledger, receipts, and everyone's usage (statements need it);
 * - member: their own keys and their own usage; no ledger, no billing.
 */
import type { OrgRole } from "../values";

export type { OrgRole };

export type Capability =
  /** See and manage every key of the organisation (otherwise: only keys one created). */
  | "keys.all"
  /** Create keys and use the playground (spend the organisation's money). */
  | "keys.own"
  /** Every member's usage and spend (otherwise: only one's own). */
  | "usage.all"
  | "ledger"
  | "billing"
  | "webhooks"
  /** Invite, remove, set roles (never owner) and monthly caps. */
  | "members"
  /** Organisation settings (name, time zone, billing details, stored responses). */
  | "settings"
  /** Make someone else owner, delete the organisation. */
  | "ownership";

const CAPS: Record<OrgRole, readonly Capability[]> = {
  owner: ["keys.all", "keys.own", "usage.all", "ledger", "billing", "webhooks", "members", "settings", "ownership"],
  admin: ["keys.all", "keys.own", "usage.all", "ledger", "billing", "webhooks", "members", "settings"],
  billing: ["usage.all", "ledger", "billing"],
  member: ["keys.own"],
};

export function can(role: OrgRole, cap: Capability): boolean {
  return CAPS[role].includes(cap);
}

export function capabilities(role: OrgRole): Capability[] {
  return [...CAPS[role]];
}

export const ROLE_LABELS: Record<OrgRole, string> = { owner: "Owner", admin: "Admin", member: "Member", billing: "Billing" };
