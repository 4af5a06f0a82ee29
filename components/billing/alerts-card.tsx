"use client";
/**
 * Billing → Alerts (decision 0029): the low-balance threshold, email on/off, the alert webhook
 * URL (its secret is shown once, right after saving), "send test alert", and recent alerts.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { api, ApiError } from "../console/api";
import { usd, when } from "../console/format";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { TextField } from "../ui/field";

interface AlertSettings {
  lowBalanceThresholdMicroUsd: number | null;
  email: boolean;
  emailAvailable: boolean;
  webhookUrl: string | null;
  webhookSecret?: string;
  recent: { id: string; kind: string; data: Record<string, unknown>; emailState: string; webhookState: string; createdAt: string }[];
}

const KIND_LABELS: Record<string, string> = {
  low_balance: "Low balance",
  budget_soft: "Budget soft limit",
  budget_80: "Budget 80 %",
  budget_100: "Budget reached",
  member_cap: "Member cap reached",
  auto_topup_succeeded: "Auto top-up succeeded",
  auto_topup_failed: "Auto top-up failed",
  auto_topup_card_removed: "Auto top-up card removed",
  test: "Test alert",
};

export function AlertsCard() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["billing-alerts"], queryFn: () => api<AlertSettings>("/api/console/billing/alerts") });
  const [threshold, setThreshold] = useState("");
  const [url, setUrl] = useState("");
  const [email, setEmail] = useState(true);
  const [secret, setSecret] = useState<string | null>(null);
  const [loadedFrom, setLoadedFrom] = useState<AlertSettings | null>(null);
  // Fill the form from the server once per answer, never over what the user is typing.
  useEffect(() => {
    if (!q.data || q.data === loadedFrom) return;
    setLoadedFrom(q.data);
    setThreshold(q.data.lowBalanceThresholdMicroUsd === null ? "" : String(q.data.lowBalanceThresholdMicroUsd / 1e6));
    setUrl(q.data.webhookUrl ?? "");
    setEmail(q.data.email);
  }, [q.data, loadedFrom]);
  const save = useMutation({
    mutationFn: (body: object) => api<AlertSettings>("/api/console/billing/alerts", { method: "PUT", body }),
    onSuccess: (d) => {
      setSecret(d.webhookSecret ?? null);
      qc.setQueryData(["billing-alerts"], { ...d, webhookSecret: undefined });
    },
  });
  const test = useMutation({
    mutationFn: () => api<{ id: string }>("/api/console/billing/alerts/test", { method: "POST" }),
    onSuccess: () => setTimeout(() => void qc.invalidateQueries({ queryKey: ["billing-alerts"] }), 1500),
  });
  const err = save.error instanceof ApiError ? save.error : null;
  const thresholdOk = threshold.trim() === "" || (/^\d+(\.\d{1,6})?$/.test(threshold.trim()) && Number(threshold) >= 0);
  function submit(e: FormEvent) {
    e.preventDefault();
    if (!thresholdOk || !q.data) return;
    const body: Record<string, unknown> = { email, lowBalanceThresholdMicroUsd: threshold.trim() === "" ? null : Math.round(Number(threshold) * 1e6) };
    if ((url.trim() || null) !== q.data.webhookUrl) body.webhookUrl = url.trim() || null;
    save.mutate(body);
  }
  const d = q.data;
  return (
    <Card>
      <CardHeader title="Alerts" description="Get an email and a signed webhook when the balance falls below a threshold or a budget fills up. Once per crossing." />
      <CardBody className="space-y-4">
        {d && !d.emailAvailable && (
          <p className="text-sm text-amber-700" data-testid="alerts-email-unavailable">
            Alerts by email are unavailable: this gateway does not send email. The webhook still works.
          </p>
        )}
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2" data-testid="alerts-form">
          <TextField
            label="Low-balance threshold (USD)"
            name="threshold"
            optional
            inputMode="decimal"
            placeholder="e.g. 5"
            hint="Empty: no low-balance alert."
            value={threshold}
            onChange={(e) => setThreshold(e.target.value)}
            error={!thresholdOk ? "Enter an amount in USD, e.g. 5 or 2.50." : err?.field === "lowBalanceThresholdMicroUsd" ? err.message : undefined}
          />
          <TextField
            label="Alert webhook URL"
            name="webhookUrl"
            optional
            type="url"
            placeholder="https://example.com/hooks/gateway"
            hint="Signed like task webhooks. Saving a new URL makes a new secret."
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            error={err?.field === "webhookUrl" ? err.message : undefined}
          />
          <label className="flex items-center gap-2 text-sm text-zinc-700 sm:col-span-2">
            <input type="checkbox" name="alertEmail" checked={email} onChange={(e) => setEmail(e.target.checked)} />
            Email alerts to owners and billing members
          </label>
          <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
            <Button type="submit" variant="secondary" loading={save.isPending} disabled={!d}>
              Save alerts
            </Button>
            <Button type="button" variant="ghost" onClick={() => test.mutate()} loading={test.isPending} disabled={!d}>
              Send test alert
            </Button>
            {save.isSuccess && <span className="text-sm text-green-700">Saved.</span>}
            {test.isSuccess && <span className="text-sm text-green-700" role="status">Test alert sent.</span>}
            {save.isError && !err?.field && <span className="text-sm text-red-600">{err?.message ?? "Could not save. Try again."}</span>}
          </div>
        </form>
        {secret && (
          <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="alerts-secret">
            <p className="font-medium text-zinc-900">Signing secret (shown once; copy it now):</p>
            <code className="break-all">{secret}</code>
          </div>
        )}
        <div>
          <h3 className="mb-2 text-sm font-medium text-zinc-900">Recent alerts</h3>
          {d && d.recent.length === 0 ? (
            <p className="text-sm text-zinc-500">No alerts yet.</p>
          ) : (
            <ul className="divide-y divide-zinc-100 text-sm" data-testid="alerts-recent">
              {d?.recent.map((a) => (
                <li key={a.id} className="flex flex-wrap items-center gap-2 py-2">
                  <span className="font-medium text-zinc-900">{KIND_LABELS[a.kind] ?? a.kind}</span>
                  {typeof a.data.balance_micro_usd === "number" && <span className="text-zinc-600">balance {usd(a.data.balance_micro_usd)}</span>}
                  <span className="text-zinc-500">{when(a.createdAt)}</span>
                  <Badge tone={a.emailState === "sent" ? "green" : "neutral"}>email {a.emailState}</Badge>
                  <Badge tone={a.webhookState === "queued" ? "green" : "neutral"}>webhook {a.webhookState === "queued" ? "sent" : a.webhookState}</Badge>
                </li>
              ))}
            </ul>
          )}
        </div>
      </CardBody>
    </Card>
  );
}
