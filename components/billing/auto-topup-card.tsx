"use client";
/**
 * Billing → Auto top-up (decision 0029): save a card through Stripe Checkout (setup mode), then
 * "when the balance falls below X, add Y", charged once per crossing. Shows the latest attempts,
 * and what to do when a card was declined or the bank asks for authentication.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useSearchParams } from "@/components/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { usdProse, when } from "../console/format";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, TextField } from "../ui/field";
import type { AutoTopupView } from "@/lib/views";

const STATE: Record<AutoTopupView["recent"][number]["state"], { label: string; tone: "green" | "red" | "amber" | "neutral" }> = {
  pending: { label: "Waiting", tone: "neutral" },
  charging: { label: "Charging", tone: "neutral" },
  succeeded: { label: "Added", tone: "green" },
  failed: { label: "Failed", tone: "red" },
  requires_action: { label: "Needs authentication", tone: "amber" },
};

export function AutoTopupCard() {
  const qc = useQueryClient();
  const router = useRouter();
  const params = useSearchParams();
  const q = useQuery({ queryKey: ["auto-topup"], queryFn: () => api<AutoTopupView>("/api/console/billing/auto-topup") });
  const [threshold, setThreshold] = useState("");
  const [amount, setAmount] = useState("");
  const [loaded, setLoaded] = useState<AutoTopupView | null>(null);
  const done = (d: AutoTopupView) => qc.setQueryData(["auto-topup"], d);
  const save = useMutation({ mutationFn: (body: object) => api<AutoTopupView>("/api/console/billing/auto-topup", { method: "PUT", body }), onSuccess: done });
  const addCard = useMutation({ mutationFn: () => api<{ url: string }>("/api/console/billing/auto-topup/card", { method: "POST", body: {} }), onSuccess: (r) => window.location.assign(r.url) });
  const confirm = useMutation({ mutationFn: (sessionId: string) => api<AutoTopupView>("/api/console/billing/auto-topup/card", { method: "POST", body: { sessionId } }), onSuccess: done });
  const remove = useMutation({ mutationFn: () => api<AutoTopupView>("/api/console/billing/auto-topup/card", { method: "DELETE" }), onSuccess: done });

  // Back from Stripe with a saved card: store it now (the webhook does too), then clean the URL.
  const returned = params.get("card_session");
  const confirming = useRef(false);
  useEffect(() => {
    if (!returned || confirming.current) return;
    confirming.current = true;
    confirm.mutate(returned, { onSettled: () => router.replace("/billing", { scroll: false }) });
  }, [returned, confirm, router]);

  useEffect(() => {
    if (!q.data || q.data === loaded) return;
    setLoaded(q.data);
    setThreshold(q.data.thresholdMicroUsd === null ? "" : String(q.data.thresholdMicroUsd / 1e6));
    setAmount(q.data.amountMicroUsd === null ? "" : String(q.data.amountMicroUsd / 1e6));
  }, [q.data, loaded]);

  const d = q.data;
  const last = d?.recent[0];
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate({ enabled: true, thresholdUsd: threshold.trim(), amountUsd: amount.trim() });
  }
  return (
    <Card>
      <CardHeader title="Auto top-up" description="Charge a saved card when the balance falls below a threshold, once each time it falls. Owners and billing members get an alert either way." />
      <CardBody className="space-y-4">
        {d && !d.available && <p className="text-sm text-zinc-600">Card payments are not enabled on this gateway, so auto top-up is unavailable.</p>}
        {confirm.isPending && <p className="text-sm text-zinc-600">Saving your card…</p>}
        {confirm.isSuccess && (
          <p role="status" className="text-sm text-green-700" data-testid="card-saved">
            Card saved: {confirm.data.card}. Set when to top up below.
          </p>
        )}
        <FormError message={formError(confirm.error ?? addCard.error ?? remove.error, [])} />
        {d?.available && (
          <div className="flex flex-wrap items-center gap-3">
            {d.card ? (
              <>
                <span className="text-sm text-zinc-900" data-testid="saved-card">
                  {d.card}
                </span>
                <Button type="button" size="sm" variant="secondary" loading={addCard.isPending} onClick={() => addCard.mutate()}>
                  Replace card
                </Button>
                <Button
                  type="button"
                  size="sm"
                  variant="ghost"
                  className="text-red-600 hover:bg-red-50"
                  loading={remove.isPending}
                  onClick={() => window.confirm("Remove the saved card? Auto top-up stops.") && remove.mutate()}
                >
                  Remove card
                </Button>
              </>
            ) : (
              <Button type="button" loading={addCard.isPending} onClick={() => addCard.mutate()} data-testid="save-card">
                Save a card with Stripe
              </Button>
            )}
          </div>
        )}
        {d?.card && (
          <form onSubmit={submit} noValidate aria-label="Auto top-up" className="space-y-3">
            <div className="grid gap-3 sm:grid-cols-2">
              <TextField label="When the balance falls below (USD)" inputMode="decimal" placeholder="e.g. 5" value={threshold} onChange={(e) => setThreshold(e.target.value)} error={fieldError(save.error, "thresholdUsd")} />
              <TextField label="Add (USD)" inputMode="decimal" placeholder="e.g. 20" hint="Enough to pass the threshold again, or it waits until you top up." value={amount} onChange={(e) => setAmount(e.target.value)} error={fieldError(save.error, "amountUsd")} />
            </div>
            <div className="flex flex-wrap items-center gap-3">
              <Button type="submit" loading={save.isPending && save.variables && "thresholdUsd" in save.variables}>
                {d.enabled ? "Save" : "Turn on auto top-up"}
              </Button>
              {d.enabled && (
                <Button type="button" variant="ghost" onClick={() => save.mutate({ enabled: false })}>
                  Turn off
                </Button>
              )}
              {d.enabled ? <Badge tone="green">On</Badge> : <Badge tone="neutral">Off</Badge>}
              {save.isSuccess && (
                <span role="status" className="text-sm text-green-700">
                  Saved.
                </span>
              )}
            </div>
            <FormError message={formError(save.error, ["thresholdUsd", "amountUsd"])} />
          </form>
        )}
        {last?.state === "failed" && (
          <p className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="auto-topup-problem">
            The last auto top-up of {usdProse(last.amountMicroUsd)} failed: {(last.errorMessage ?? last.errorCode ?? "").replace(/\.$/, "")}. Replace the card, or top up by hand above; the next one is tried when the balance falls again.
          </p>
        )}
        {last?.state === "requires_action" && (
          <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900" data-testid="auto-topup-problem">
            Your bank asked to authenticate the last auto top-up of {usdProse(last.amountMicroUsd)}, which cannot happen while you are away. Top up by hand above once (your bank may then allow later charges), or save another card.
          </p>
        )}
        {d && d.recent.length > 0 && (
          <div>
            <h3 className="mb-2 text-sm font-medium text-zinc-900">Latest auto top-ups</h3>
            <ul className="divide-y divide-zinc-100 text-sm" data-testid="auto-topup-recent">
              {d.recent.map((r) => (
                <li key={r.id} className="flex flex-wrap items-center gap-2 py-2">
                  <span className="font-medium tabular-nums text-zinc-900">{usdProse(r.amountMicroUsd)}</span>
                  <Badge tone={STATE[r.state].tone}>{STATE[r.state].label}</Badge>
                  {r.errorCode && <span className="text-zinc-600">{r.errorCode}</span>}
                  <span className="text-zinc-500">{when(r.createdAt)}</span>
                </li>
              ))}
            </ul>
          </div>
        )}
      </CardBody>
    </Card>
  );
}
