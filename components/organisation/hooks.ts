"use client";
/** TanStack Query hooks for the Organisation page (members, invites, settings). */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../console/api";
import type { OrgRole } from "../console/types";
import type { BudgetView, InviteView, MemberView } from "@/lib/views";

export type { MemberView, InviteView, BudgetView };

export interface OrgSettings {
  id: string;
  name: string;
  personal: boolean;
  timeZone: string;
  billingName: string | null;
  billingEmail: string | null;
  billingAddress: string | null;
  billingTaxId: string | null;
}

export interface CreatedInvite {
  id: string;
  email: string;
  role: OrgRole;
  expiresAt: string;
  emailed: boolean;
  /** The link to pass on by hand when no email was sent. */
  url: string | null;
}

export function useOrgSettings() {
  return useQuery({ queryKey: ["org", "settings"], queryFn: () => api<OrgSettings>("/api/console/orgs/current") });
}

export function useMembers(enabled: boolean) {
  return useQuery({ queryKey: ["org", "members"], queryFn: () => api<{ items: MemberView[] }>("/api/console/orgs/members"), enabled });
}

export function useInvites(enabled: boolean) {
  return useQuery({ queryKey: ["org", "invites"], queryFn: () => api<{ items: InviteView[]; emailAvailable: boolean }>("/api/console/orgs/invites"), enabled });
}

function useOrgMutation<V, R>(fn: (v: V) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: ["org"] }), qc.invalidateQueries({ queryKey: ["me"] })]) });
}

export const useUpdateSettings = () => useOrgMutation((body: Partial<Omit<OrgSettings, "id" | "personal">>) => api<OrgSettings>("/api/console/orgs/current", { method: "PATCH", body }));
export const useUpdateMember = () =>
  useOrgMutation(({ userId, body }: { userId: string; body: { role?: OrgRole; monthlyCapUsd?: string } }) => api(`/api/console/orgs/members/${encodeURIComponent(userId)}`, { method: "PATCH", body }));
export const useRemoveMember = () => useOrgMutation((userId: string) => api(`/api/console/orgs/members/${encodeURIComponent(userId)}`, { method: "DELETE" }));
export const useInvite = () => useOrgMutation((body: { email: string; role: OrgRole; monthlyCapUsd?: string }) => api<{ invite: CreatedInvite }>("/api/console/orgs/invites", { method: "POST", body }));
export const useRevokeInvite = () => useOrgMutation((id: string) => api(`/api/console/orgs/invites/${encodeURIComponent(id)}`, { method: "DELETE" }));
export const useCreateOrg = () => useMutation({ mutationFn: (name: string) => api<{ org: { id: string } }>("/api/console/orgs", { method: "POST", body: { name } }) });

export interface BudgetsAnswer {
  items: BudgetView[];
  canManage: boolean;
  targets: { members: { id: string; email: string }[]; keys: { id: string; name: string; prefix: string; last4: string }[] } | null;
}

export function useBudgets() {
  return useQuery({ queryKey: ["org", "budgets"], queryFn: () => api<BudgetsAnswer>("/api/console/orgs/budgets") });
}

export interface BudgetInput {
  scope: BudgetView["scope"];
  userId?: string;
  keyId?: string;
  period: BudgetView["period"];
  limitUsd: string;
  softLimitUsd: string;
}

export const useSetBudget = () => useOrgMutation((body: BudgetInput) => api<{ budget: BudgetView }>("/api/console/orgs/budgets", { method: "POST", body }));
export const useDeleteBudget = () => useOrgMutation((id: string) => api(`/api/console/orgs/budgets/${encodeURIComponent(id)}`, { method: "DELETE" }));
