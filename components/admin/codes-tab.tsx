"use client";
/** Admin → Redeem codes: make a batch (amount, count, uses per code, once per person, expiry, note), export CSV, withdraw. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, ApiError } from "../console/api";
import { usd } from "../console/format";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { TextField } from "../ui/field";
import { Time } from "../ui/money";
import { Empty, ErrorState, Loading } from "../ui/states";
import { DataTable } from "../ui/data-table";
import { Mono } from "../ui/table";

interface Batch {
  id: string;
  amountMicroUsd: number;
  maxRedemptions: number;
  oncePerUser: boolean;
  codeCount: number;
  expiresAt: string | null;
  note: string | null;
  disabled: boolean;
  createdAt: string;
  redeemed: number;
  creditedMicroUsd: number;
}

const KEY = ["admin", "redeem-codes"];

export function CodesTab() {
  const qc = useQueryClient();
  const batches = useQuery({ queryKey: KEY, queryFn: () => api<{ batches: Batch[] }>("/api/admin/redeem-codes") });
  const [form, setForm] = useState({ amountUsd: "10", count: "10", maxRedemptions: "1", expiresAt: "", note: "", oncePerUser: true });
  const [made, setMade] = useState<{ batch: Batch; codes: string[] } | null>(null);
  const create = useMutation({
    mutationFn: () =>
      api<{ batch: Batch; codes: string[] }>("/api/admin/redeem-codes", {
        method: "POST",
        body: { ...form, count: Number(form.count), maxRedemptions: Number(form.maxRedemptions), expiresAt: form.expiresAt ? new Date(`${form.expiresAt}T23:59:59`).toISOString() : null },
      }),
    onSuccess: (r) => {
      setMade(r);
      void qc.invalidateQueries({ queryKey: KEY });
    },
  });
  const toggle = useMutation({
    mutationFn: (b: Batch) => api(`/api/admin/redeem-codes/${encodeURIComponent(b.id)}`, { method: "PATCH", body: { disabled: !b.disabled } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
  const err = create.error instanceof ApiError ? create.error : null;
  const fieldError = (f: string) => (err?.field === f ? err.message : undefined);
  const set = (k: Exclude<keyof typeof form, "oncePerUser">) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate();
  }
  return (
    <div className="space-y-6">
      <Card>
        <CardHeader title="New batch of redeem codes" description="Each code credits its amount once per organisation, and once per person unless you untick it; with more than one use, that many can redeem it. Users redeem on Billing." />
        <CardBody>
          <form onSubmit={submit} className="grid gap-3 sm:grid-cols-5" data-testid="code-batch-form">
            <TextField label="Amount per code (USD)" name="amountUsd" inputMode="decimal" value={form.amountUsd} onChange={set("amountUsd")} error={fieldError("amount")} />
            <TextField label="Codes" name="count" inputMode="numeric" value={form.count} onChange={set("count")} error={fieldError("count")} />
            <TextField label="Uses per code" name="maxRedemptions" inputMode="numeric" value={form.maxRedemptions} onChange={set("maxRedemptions")} error={fieldError("maxRedemptions")} hint="1 = single use" />
            <TextField label="Expires" name="expiresAt" type="date" optional value={form.expiresAt} onChange={set("expiresAt")} error={fieldError("expiresAt")} />
            <TextField label="Note" name="note" optional value={form.note} onChange={set("note")} error={fieldError("note")} />
            <label className="flex items-center gap-2 text-sm text-zinc-700 sm:col-span-5">
              <input type="checkbox" name="oncePerUser" checked={form.oncePerUser} onChange={(e) => setForm({ ...form, oncePerUser: e.target.checked })} />
              Once per person (a person cannot redeem a code again for another organisation of theirs)
            </label>
            <div className="sm:col-span-5">
              {err && !err.field && <p className="mb-2 text-sm text-red-600">{err.message}</p>}
              <Button type="submit" loading={create.isPending}>
                Create codes
              </Button>
            </div>
          </form>
          {made && (
            <div className="mt-4 space-y-2 rounded-md border border-green-200 bg-green-50 p-3 text-sm" data-testid="code-batch-made">
              <p className="text-green-800">
                {made.codes.length} code{made.codes.length === 1 ? "" : "s"} of {usd(made.batch.amountMicroUsd)} made.{" "}
                <a className="font-medium underline" href={`/api/admin/redeem-codes/${encodeURIComponent(made.batch.id)}/csv`} download>
                  Download CSV
                </a>
              </p>
              <pre className="max-h-48 overflow-auto rounded bg-white p-2 font-mono text-xs" data-testid="code-list" tabIndex={0} aria-label="New codes">
                {made.codes.join("\n")}
              </pre>
            </div>
          )}
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="Batches" />
        {batches.isLoading ? (
          <Loading />
        ) : batches.isError ? (
          <ErrorState error={batches.error} retry={() => batches.refetch()} />
        ) : !batches.data?.batches.length ? (
          <Empty title="No redeem codes yet" />
        ) : (
          <DataTable
            label="Redeem code batches"
            rows={batches.data.batches}
            rowKey={(b) => b.id}
            rowTestId="code-batch-row"
            columns={[
              { header: "Created", cell: (b) => <Time iso={b.createdAt} /> },
              { header: "Note", cell: (b) => b.note || <Mono>{b.id}</Mono> },
              { header: "Per code", align: "right", cell: (b) => usd(b.amountMicroUsd) },
              {
                header: "Codes × uses",
                align: "right",
                cell: (b) => (
                  <>
                    {b.codeCount} × {b.maxRedemptions}
                    {b.maxRedemptions > 1 && !b.oncePerUser && <span className="block text-xs text-zinc-500">per organisation</span>}
                  </>
                ),
              },
              { header: "Redeemed", align: "right", cell: (b) => `${b.redeemed} (${usd(b.creditedMicroUsd)})` },
              { header: "Expires", cell: (b) => (b.expiresAt ? <Time iso={b.expiresAt} /> : "never") },
              { header: "State", cell: (b) => (b.disabled ? <Badge tone="red">withdrawn</Badge> : b.expiresAt && new Date(b.expiresAt) < new Date() ? <Badge tone="amber">expired</Badge> : <Badge tone="green">active</Badge>) },
              {
                header: "",
                className: "whitespace-nowrap text-right",
                cell: (b) => (
                  <>
                    <a className="mr-3 text-sm font-medium text-zinc-700 hover:underline" href={`/api/admin/redeem-codes/${encodeURIComponent(b.id)}/csv`} download>
                      CSV
                    </a>
                    <Button size="sm" variant="secondary" onClick={() => toggle.mutate(b)} loading={toggle.isPending && toggle.variables?.id === b.id}>
                      {b.disabled ? "Restore" : "Withdraw"}
                    </Button>
                  </>
                ),
              },
            ]}
          />
        )}
      </Card>
    </div>
  );
}
