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
import { Mono, Table, Td, Th } from "../ui/table";

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
        <>
          <Table label="Audit log">
            <thead>
              <tr>
                <Th>Time</Th>
                <Th>Actor</Th>
                <Th>Action</Th>
                <Th>Target</Th>
                <Th>Details</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {rows.map((r) => (
                <tr key={r.id} data-testid="audit-row" className="align-top">
                  <Td className="w-32 whitespace-normal!">
                    <Time iso={r.createdAt} />
                  </Td>
                  <Td className="max-w-48 whitespace-normal! wrap-anywhere">{r.actor}</Td>
                  <Td>
                    <Mono>{r.action}</Mono>
                  </Td>
                  <Td className="max-w-56 whitespace-normal! wrap-anywhere">
                    <Target r={r} />
                  </Td>
                  <Td className="min-w-48 whitespace-normal! wrap-anywhere" data-testid="audit-details">
                    <Details d={r.details} />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
          {q.hasNextPage && (
            <div className="border-t border-zinc-100 px-4 py-3 text-center">
              <Button variant="secondary" size="sm" loading={q.isFetchingNextPage} onClick={() => q.fetchNextPage()}>
                Load older
              </Button>
            </div>
          )}
        </>
      )}
    </Card>
  );
}
