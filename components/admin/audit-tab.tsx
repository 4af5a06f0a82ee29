"use client";
import { useState, type FormEvent, type ReactNode } from "react";
import { usd, when } from "../console/format";
import { useAudit } from "../console/hooks";
import type { AuditFilters, AuditRow } from "../console/types";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { SelectField, TextField } from "../ui/field";
import { Time } from "../ui/money";
import { Empty, ErrorState, Loading } from "../ui/states";
import { DataTable, type Column } from "../ui/data-table";
import { Mono } from "../ui/table";

const ACTIONS: { value: string; label: string }[] = [
  { value: "", label: "Any action" },
  { value: "user", label: "Users (role, disable)" },
  { value: "balance", label: "Balance credit / debit" },
  { value: "key", label: "API keys" },
  { value: "upstream", label: "Upstreams" },
  { value: "model", label: "Models & prices" },
];

const HIDDEN = new Set(["before", "after", "email", "name", "modelId"]);

/** A value as people read it: money in dollars (micro-USD fields and a model's price), lists joined, objects as key: value. */
function show(key: string, v: unknown, money = /MicroUsd$/.test(key) || key === "price"): string {
  if (typeof v === "number" && money) return usd(v, true);
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (v === null || v === undefined || v === "") return "—";
  if (Array.isArray(v)) return v.length ? v.map((x) => show(key, x, money)).join(", ") : "none";
  if (typeof v === "object") return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${words(k)}: ${show(k, x, money || /MicroUsd$/.test(k))}`).join("; ");
  if (typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v)) return when(v);
  return String(v);
}

const words = (k: string) => k.replace(/MicroUsd$/, "").replace(/([A-Z])/g, " $1").toLowerCase();

function Details({ d }: { d: Record<string, unknown> | null }) {
  if (!d) return <span className="text-zinc-600">—</span>;
  const before = (d.before ?? {}) as Record<string, unknown>;
  const after = (d.after ?? {}) as Record<string, unknown>;
  const diff = Object.keys({ ...before, ...after });
  const rest = Object.entries(d).filter(([k]) => !HIDDEN.has(k) && !diff.includes(k));
  const lines: ReactNode[] = [
    ...diff.map((k) => (
      <li key={`d-${k}`}>
        <span className="text-zinc-600">{words(k)}:</span> <del className="diff-del">{show(k, before[k])}</del> → <ins className="diff-ins no-underline">{show(k, after[k])}</ins>
      </li>
    )),
    ...rest.map(([k, v]) => (
      <li key={k}>
        <span className="text-zinc-600">{words(k)}:</span> {show(k, v)}
      </li>
    )),
  ];
  return lines.length ? <ul className="space-y-0.5 text-xs">{lines}</ul> : <span className="text-zinc-600">—</span>;
}

function Target({ r }: { r: AuditRow }) {
  if (!r.targetId) return <>—</>;
  // The name at the time of the change when the row is gone or has none of its own (a model's public id).
  const recorded = ["email", "modelId", "name"].map((k) => r.details?.[k]).find((v) => typeof v === "string");
  const name = r.targetName ?? (recorded as string | undefined) ?? null;
  return (
    <span>
      {name && <span className="block">{name}</span>}
      <Mono className="text-zinc-600">{r.targetId}</Mono>
    </span>
  );
}

const COLUMNS: Column<AuditRow>[] = [
  { header: "Time", className: "w-32 whitespace-normal!", cell: (r) => <Time iso={r.createdAt} /> },
  { header: "Actor", className: "max-w-48 whitespace-normal! wrap-anywhere", cell: (r) => r.actor },
  { header: "Action", cell: (r) => <Mono>{r.action}</Mono> },
  { header: "Target", className: "max-w-56 whitespace-normal! wrap-anywhere", cell: (r) => <Target r={r} /> },
  { header: "Details", className: "min-w-48 whitespace-normal! wrap-anywhere", props: () => ({ "data-testid": "audit-details" }), cell: (r) => <Details d={r.details} /> },
];

export function AuditTab() {
  const [draft, setDraft] = useState<AuditFilters>({});
  const [filters, setFilters] = useState<AuditFilters>({});
  const q = useAudit(filters);
  const rows = q.data?.pages.flatMap((p) => p.items) ?? [];
  function apply(e: FormEvent) {
    e.preventDefault();
    setFilters(Object.fromEntries(Object.entries(draft).filter(([, v]) => v)) as AuditFilters);
  }
  return (
    <Card>
      <p className="flex gap-4 border-b border-zinc-100 px-5 py-2 text-sm">
        <span className="text-zinc-600">Every event:</span>
        <a className="underline" href="/api/admin/audit/export?format=csv" download>
          CSV
        </a>
        <a className="underline" href="/api/admin/audit/export?format=jsonl" download>
          JSONL
        </a>
      </p>
      <form onSubmit={apply} className="grid gap-3 border-b border-zinc-100 px-5 py-4 sm:grid-cols-2 lg:grid-cols-4" aria-label="Audit filters">
        <TextField label="Actor" placeholder="email or cli" value={draft.actor ?? ""} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} />
        <SelectField label="Action" value={draft.action ?? ""} onChange={(e) => setDraft({ ...draft, action: e.target.value })}>
          {ACTIONS.map((a) => (
            <option key={a.value} value={a.value}>
              {a.label}
            </option>
          ))}
        </SelectField>
        <TextField label="Target" placeholder="email, key name or id" value={draft.target ?? ""} onChange={(e) => setDraft({ ...draft, target: e.target.value })} />
        <div className="flex items-end gap-2">
          <Button type="submit">Filter</Button>
          <Button
            variant="ghost"
            onClick={() => {
              setDraft({});
              setFilters({});
            }}
          >
            Clear
          </Button>
        </div>
      </form>
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorState error={q.error} retry={() => q.refetch()} />
      ) : rows.length === 0 ? (
        <Empty title={Object.keys(filters).length ? "Nothing matches these filters" : "Nothing recorded yet"} />
      ) : (
        <DataTable
          label="Audit log"
          rows={rows}
          rowKey={(r) => r.id}
          rowTestId="audit-row"
          rowClassName="align-top"
          columns={COLUMNS}
          hasMore={q.hasNextPage}
          loadingMore={q.isFetchingNextPage}
          onMore={() => q.fetchNextPage()}
        />
      )}
    </Card>
  );
}
