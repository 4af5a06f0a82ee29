"use client";
/**
 * Organisation → Audit log (owners and admins): the latest events with before → after, the
 * CSV/JSONL download, and the signed audit webhook (its secret shown once).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { AuditView, AuditWebhookView } from "@/lib/views";
import { api, fieldError } from "../console/api";
import type { Wire } from "@/lib/console/wire";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { CopyButton } from "../ui/copy-button";
import { TextField } from "../ui/field";
import { Empty, ErrorState, Loading } from "../ui/states";
import { DataTable } from "../ui/data-table";
import { Mono } from "../ui/table";

const change = (d: Record<string, unknown> | null) => {
  const b = d?.before as Record<string, unknown> | null | undefined;
  const a = d?.after as Record<string, unknown> | null | undefined;
  const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a ?? {})])];
  return keys.map((k) => `${k}: ${JSON.stringify(b?.[k] ?? null)} → ${JSON.stringify(a?.[k] ?? null)}`).join("; ");
};

export function AuditCard() {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ["org", "audit"], queryFn: () => api<{ items: Wire<AuditView>[] }>("/api/console/orgs/audit") });
  const hook = useQuery({ queryKey: ["org", "audit-webhook"], queryFn: () => api<AuditWebhookView>("/api/console/orgs/audit-webhook") });
  const save = useMutation({
    mutationFn: (url: string | null) => api<AuditWebhookView & { secret?: string }>("/api/console/orgs/audit-webhook", { method: "PUT", body: { url } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["org"] }),
  });
  const [url, setUrl] = useState<string | null>(null);
  return (
    <Card>
      <CardHeader title="Audit log" description="Every change to this organisation: who, when, and the values before and after. Download it, or receive each event on a signed webhook." />
      <CardBody className="space-y-4">
        <div className="flex gap-4 text-sm">
          <a className="underline" href="/api/console/orgs/audit/export?format=csv" download>
            Download CSV
          </a>
          <a className="underline" href="/api/console/orgs/audit/export?format=jsonl" download>
            Download JSONL
          </a>
        </div>
        {hook.data && (
          <form
            className="flex flex-wrap items-end gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              save.mutate((url ?? hook.data.url ?? "") || null);
            }}
          >
            <TextField label="Audit webhook URL" optional value={url ?? hook.data.url ?? ""} onChange={(e) => setUrl(e.target.value)} error={fieldError(save.error, "url")} hint="Signed like task webhooks (X-Shim-Signature). Empty = off." />
            <Button type="submit" loading={save.isPending} disabled={url === null}>
              Save webhook
            </Button>
          </form>
        )}
        {save.data?.secret && (
          <p className="text-sm">
            Signing secret (shown once): <Mono>{save.data.secret}</Mono> <CopyButton value={save.data.secret} />
          </p>
        )}
        {list.isPending ? (
          <Loading />
        ) : list.isError ? (
          <ErrorState error={list.error} retry={() => list.refetch()} />
        ) : !list.data.items.length ? (
          <Empty title="No events yet" />
        ) : (
          <DataTable
            label="Audit events"
            rows={list.data.items.slice(0, 20)}
            rowKey={(e) => e.id}
            columns={[
              { header: "When", cell: (e) => new Date(e.createdAt).toLocaleString() },
              { header: "Who", cell: (e) => e.actor },
              { header: "Action", cell: (e) => <Mono>{e.action}</Mono> },
              { header: "Change", className: "text-xs", cell: (e) => change(e.details) },
            ]}
          />
        )}
      </CardBody>
    </Card>
  );
}
