"use client";
/** TanStack Query hooks for every console route. Keys are arrays starting with the area name. */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "./api";
import { usageQuery as sharedUsageQuery } from "./query-string";
import type * as T from "./types";

export function useMe() {
  // The header balance: refreshed with every page's data (providers.tsx) and every 15 s while
  // the tab is visible (TanStack Query pauses intervals in background tabs).
  return useQuery({ queryKey: ["me"], queryFn: () => api<T.Me>("/api/console/me"), refetchInterval: 15_000 });
}

export function useOverview() {
  return useQuery({ queryKey: ["overview"], queryFn: () => api<T.Overview>("/api/console/overview") });
}

export function useModels() {
  return useQuery({ queryKey: ["models"], queryFn: () => api<{ items: T.AvailableModel[] }>("/api/console/models"), staleTime: 60_000 });
}

export function useKeys() {
  return useQuery({ queryKey: ["keys"], queryFn: () => api<{ items: T.KeyView[] }>("/api/console/keys") });
}

function useInvalidate() {
  const qc = useQueryClient();
  return (...keys: string[]) => Promise.all(keys.map((k) => qc.invalidateQueries({ queryKey: [k] })));
}

export function useCreateKey() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: T.CreateKeyBody) => api<{ key: T.CreatedKey }>("/api/console/keys", { method: "POST", body }),
    onSuccess: () => invalidate("keys", "overview"),
  });
}

export function useUpdateKey() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: T.CreateKeyBody }) => api<{ id: string }>(`/api/console/keys/${encodeURIComponent(id)}`, { method: "PATCH", body }),
    onSuccess: () => invalidate("keys"),
  });
}

export function useRollKey() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, graceSeconds }: { id: string; graceSeconds: number }) =>
      api<{ key: T.CreatedKey & { previousExpiresAt: string | null } }>(`/api/console/keys/${encodeURIComponent(id)}/roll`, { method: "POST", body: { graceSeconds } }),
    onSuccess: () => invalidate("keys"),
  });
}

export function useRevokeKey() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => api<{ id: string }>(`/api/console/keys/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => invalidate("keys", "overview"),
  });
}

export function useLedger() {
  return useInfiniteQuery({
    queryKey: ["ledger"],
    queryFn: ({ pageParam }) => api<T.Page<T.LedgerRow, number>>(`/api/console/ledger${pageParam ? `?before=${pageParam}` : ""}`),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function usageQuery(f: T.UsageFilters | Record<string, string | undefined>, extra: Record<string, string | number | undefined> = {}): string {
  return sharedUsageQuery(f as Record<string, string | undefined>, extra);
}

export function useUsage(f: T.UsageFilters) {
  return useInfiniteQuery({
    queryKey: ["usage", f],
    queryFn: ({ pageParam }) => api<T.UsagePage>(`/api/console/usage${usageQuery(f, { before: pageParam || undefined })}`),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useDailySpend(f: T.UsageFilters) {
  return useQuery({ queryKey: ["usage", "daily", f], queryFn: () => api<{ items: T.DailySpend[] }>(`/api/console/usage/daily${usageQuery(f)}`) });
}

export function useTasks() {
  return useQuery({ queryKey: ["tasks"], queryFn: () => api<T.Page<T.TaskRow, string>>("/api/console/tasks") });
}

export function useBilling() {
  return useQuery({ queryKey: ["billing"], queryFn: () => api<T.Billing>("/api/console/billing") });
}

export function useResponsesStorage() {
  return useQuery({ queryKey: ["responses-storage"], queryFn: () => api<T.ResponsesStorage>("/api/console/billing/responses-storage") });
}

export function useSetResponsesStorage() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (storeResponses: boolean) => api<T.ResponsesStorage>("/api/console/billing/responses-storage", { method: "PUT", body: { storeResponses } }),
    onSuccess: (data) => qc.setQueryData(["responses-storage"], data),
  });
}

export function useCheckout() {
  return useMutation({
    mutationFn: (amountCents: number) => api<{ id: string; url: string }>("/api/console/billing/checkout", { method: "POST", body: { amountCents } }),
  });
}

export function useCheckoutStatus(sessionId: string | null) {
  const invalidate = useInvalidate();
  return useQuery({
    queryKey: ["checkout", sessionId],
    enabled: Boolean(sessionId),
    queryFn: async () => {
      const r = await api<T.CheckoutStatus>(`/api/console/billing/checkout/${encodeURIComponent(sessionId!)}`);
      if (r.state === "paid") void invalidate("billing", "ledger", "me", "overview");
      return r;
    },
    // Stripe's webhook may land a moment after the redirect; ask again until it has.
    refetchInterval: (q) => (q.state.data?.state === "pending" && q.state.dataUpdateCount < 60 ? 2000 : false),
  });
}

// Admin

export function useAdminUsers(q: string, offset: number) {
  return useQuery({
    queryKey: ["admin", "users", q, offset],
    queryFn: () => api<{ items: T.AdminUser[]; nextOffset: number | null }>(`/api/admin/users?q=${encodeURIComponent(q)}&offset=${offset}`),
    placeholderData: (prev) => prev,
  });
}

export function useAdminMutation<V, R = unknown>(fn: (v: V) => Promise<R>, areas: string[] = ["admin"]) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => Promise.all([...areas, "me", "overview"].map((a) => qc.invalidateQueries({ queryKey: [a] }))),
  });
}

export function useAdminUpstreams() {
  return useQuery({ queryKey: ["admin", "upstreams"], queryFn: () => api<{ items: T.AdminUpstream[] }>("/api/admin/upstreams") });
}

/** Circuits change on their own: refreshed every 5 s while the tab is open. */
export function useUpstreamHealth() {
  return useQuery({ queryKey: ["admin", "upstream-health"], queryFn: () => api<T.UpstreamHealthView>("/api/admin/upstream-health"), refetchInterval: 5000 });
}

export function useAdminModels() {
  return useQuery({ queryKey: ["admin", "models"], queryFn: () => api<{ items: T.AdminModel[]; deprecatedCallers: T.DeprecatedCaller[] }>("/api/admin/models") });
}

export function useAudit(f: T.AuditFilters = {}) {
  return useInfiniteQuery({
    queryKey: ["admin", "audit", f],
    queryFn: ({ pageParam }) => api<T.Page<T.AuditRow, number>>(`/api/admin/audit${usageQuery(f as Record<string, string>, { before: pageParam || undefined })}`),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

// Webhooks

export function useWebhooks() {
  return useInfiniteQuery({
    queryKey: ["webhooks"],
    queryFn: ({ pageParam }) => api<T.Page<T.WebhookDelivery, string>>(`/api/console/webhooks${pageParam ? `?before=${encodeURIComponent(pageParam)}` : ""}`),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // Pending deliveries change as the worker retries them.
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((d) => d.state === "pending")) ? 5000 : false),
  });
}

export function useSendTestWebhook() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: { url: string; secret?: string }) => api<T.TestEventResult>("/api/console/webhooks/test", { method: "POST", body }),
    onSuccess: () => invalidate("webhooks"),
  });
}

export function useResendWebhook() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => api<{ delivery: T.WebhookDelivery }>(`/api/console/webhooks/${encodeURIComponent(id)}/resend`, { method: "POST" }),
    onSuccess: () => invalidate("webhooks"),
  });
}

export function useBatches() {
  return useInfiniteQuery({
    queryKey: ["batches"],
    queryFn: ({ pageParam }) => api<T.Page<T.BatchRow, string>>(`/api/console/batches${pageParam ? `?after=${encodeURIComponent(pageParam)}` : ""}`),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // Open batches move as their lines run.
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((b) => !b.endedAt)) ? 3000 : false),
  });
}

export function useCancelBatch() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => api<{ batch: T.BatchRow; returnedMicroUsd: number }>(`/api/console/batches/${encodeURIComponent(id)}/cancel`, { method: "POST" }),
    onSuccess: () => invalidate("batches", "overview", "me"),
  });
}
