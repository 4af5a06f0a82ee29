"use client";
/** Billing: receipts for every credit, monthly statements (CSV, PDF), and the billed-to details they print. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { api, ApiError } from "../console/api";
import { usd } from "../console/format";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { Time } from "../ui/money";
import { Empty, ErrorState, Loading } from "../ui/states";
import { Mono, Table, Td, Th } from "../ui/table";

interface Receipt {
  id: number;
  number: string;
  createdAt: string;
  kind: string;
  amountMicroUsd: number;
  description: string;
  source: "stripe" | "gateway";
  url: string;
  pdfUrl: string;
}

interface Details {
  name: string;
  address: string;
  taxId: string;
  email: string;
}

interface EmailState {
  email: string;
  verified: boolean;
  emailAvailable: boolean;
}

/** The last 12 UTC months, newest first, as YYYY-MM. */
function recentMonths(now = new Date()): string[] {
  return Array.from({ length: 12 }, (_, i) => {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    return d.toISOString().slice(0, 7);
  });
}

export function ReceiptsCard() {
  const receipts = useQuery({ queryKey: ["receipts"], queryFn: () => api<{ items: Receipt[] }>("/api/console/billing/receipts") });
  const months = recentMonths();
  const [month, setMonth] = useState(months[0]!);
  return (
    <Card>
      <CardHeader title="Receipts and statements" description="A receipt for every credit to your balance; card top-ups open Stripe's receipt. Statements show a month's balance movement and spend by model." />
      <CardBody className="space-y-4">
        <div className="flex flex-wrap items-end gap-2" data-testid="statement-form">
          <SelectField label="Statement month (UTC)" name="month" value={month} onChange={(e) => setMonth(e.target.value)}>
            {months.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </SelectField>
          <a className="inline-flex h-9 items-center rounded-md border border-zinc-300 bg-white px-4 text-sm font-medium text-zinc-900 hover:bg-zinc-50" href={`/api/console/billing/statement?month=${month}&format=csv`} download data-testid="statement-csv">
            CSV
          </a>
          <a className="inline-flex h-9 items-center rounded-md border border-zinc-300 bg-white px-4 text-sm font-medium text-zinc-900 hover:bg-zinc-50" href={`/api/console/billing/statement?month=${month}&format=pdf`} download data-testid="statement-pdf">
            PDF
          </a>
        </div>
      </CardBody>
      {receipts.isLoading ? (
        <Loading />
      ) : receipts.isError ? (
        <ErrorState error={receipts.error} retry={() => receipts.refetch()} />
      ) : !receipts.data?.items.length ? (
        <Empty title="No receipts yet">Top-ups and redeemed codes get a receipt here.</Empty>
      ) : (
        <Table label="Receipts">
          <thead>
            <tr>
              <Th>Date</Th>
              <Th>Receipt</Th>
              <Th>Description</Th>
              <Th className="text-right">Amount</Th>
              <Th />
            </tr>
          </thead>
          <tbody>
            {receipts.data.items.map((r) => (
              <tr key={r.id} data-testid="receipt-row">
                <Td label="Date">
                  <Time iso={r.createdAt} />
                </Td>
                <Td label="Receipt">
                  <Mono>{r.number}</Mono>
                </Td>
                <Td label="Description">
                  {r.description} {r.source === "stripe" && <Badge tone="blue">card</Badge>}
                </Td>
                <Td label="Amount" className="text-right tabular-nums">
                  {usd(r.amountMicroUsd)}
                </Td>
                <Td className="whitespace-nowrap text-right text-sm">
                  {r.source === "stripe" && (
                    <a className="mr-3 font-medium text-zinc-700 hover:underline" href={r.url} target="_blank" rel="noopener noreferrer" data-testid="receipt-stripe">
                      Stripe receipt
                    </a>
                  )}
                  <a className="font-medium text-zinc-700 hover:underline" href={r.pdfUrl} download data-testid="receipt-pdf">
                    PDF
                  </a>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

export function BillingDetailsCard() {
  const qc = useQueryClient();
  const details = useQuery({ queryKey: ["billing-details"], queryFn: () => api<Details>("/api/console/billing/details") });
  const email = useQuery({ queryKey: ["email"], queryFn: () => api<EmailState>("/api/console/email") });
  const [form, setForm] = useState<Details>({ name: "", address: "", taxId: "", email: "" });
  useEffect(() => {
    if (details.data) setForm(details.data);
  }, [details.data]);
  const save = useMutation({
    mutationFn: (d: Details) => api<Details>("/api/console/billing/details", { method: "PUT", body: d }),
    onSuccess: (d) => qc.setQueryData(["billing-details"], d),
  });
  const verify = useMutation({ mutationFn: () => api<{ message: string }>("/api/console/email/verify", { method: "POST" }) });
  const err = save.error instanceof ApiError ? save.error : null;
  const set = (k: keyof Details) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate(form);
  }
  const em = email.data;
  return (
    <Card>
      <CardHeader title="Billed to" description="The name, address, tax ID and email printed on receipts and statements. All optional." />
      <CardBody className="space-y-4">
        {em && (
          <p className="text-sm text-zinc-600" data-testid="email-state">
            Signed in as <span className="font-medium text-zinc-900">{em.email}</span>{" "}
            {em.verified ? (
              <Badge tone="green">verified</Badge>
            ) : (
              <>
                <Badge tone="amber">not verified</Badge>{" "}
                {em.emailAvailable ? (
                  verify.isSuccess ? (
                    <span className="text-green-700">{verify.data.message}</span>
                  ) : (
                    <Button size="sm" variant="ghost" onClick={() => verify.mutate()} loading={verify.isPending}>
                      Send verification link
                    </Button>
                  )
                ) : (
                  <span>(this gateway does not send email)</span>
                )}
                {verify.error instanceof ApiError && <span className="text-red-600"> {verify.error.message}</span>}
              </>
            )}
          </p>
        )}
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2" data-testid="billing-details-form">
          <TextField label="Name or company" name="name" optional value={form.name} onChange={set("name")} error={err?.field === "name" ? err.message : undefined} />
          <TextField label="Tax ID" name="taxId" optional value={form.taxId} onChange={set("taxId")} error={err?.field === "taxId" ? err.message : undefined} />
          <TextAreaField label="Address" name="address" optional rows={3} value={form.address} onChange={set("address")} error={err?.field === "address" ? err.message : undefined} />
          <TextField label="Billing email" name="billingEmail" type="email" optional value={form.email} onChange={set("email")} error={err?.field === "email" ? err.message : undefined} />
          <div className="sm:col-span-2 flex items-center gap-3">
            <Button type="submit" variant="secondary" loading={save.isPending} disabled={!details.data}>
              Save details
            </Button>
            {save.isSuccess && <span className="text-sm text-green-700">Saved.</span>}
            {save.isError && !err?.field && <span className="text-sm text-red-600">Could not save. Try again.</span>}
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
