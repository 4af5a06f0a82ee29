"use client";
import { usd } from "../console/format";
import { InspectorLink } from "../inspector/request-inspector";
import { Time } from "../ui/money";
import { useLedger } from "../console/hooks";
import type { LedgerRow } from "../console/types";
import { Badge } from "../ui/badge";
import { Card, CardHeader } from "../ui/card";
import { Empty, ErrorState, Loading } from "../ui/states";
import { DataTable, type Column } from "../ui/data-table";
import { Mono } from "../ui/table";

const KIND: Record<string, { label: string; tone: "green" | "red" | "neutral" | "amber" | "blue" }> = {
  topup: { label: "Top-up", tone: "green" },
  charge: { label: "Charge", tone: "neutral" },
  hold: { label: "Hold", tone: "neutral" },
  release: { label: "Release", tone: "neutral" },
  refund: { label: "Refund", tone: "blue" },
  admin_credit: { label: "Admin credit", tone: "green" },
  admin_debit: { label: "Admin debit", tone: "amber" },
  stripe_refund: { label: "Card refund", tone: "red" },
  stripe_dispute: { label: "Dispute", tone: "red" },
  redeem: { label: "Redeemed code", tone: "green" },
};

function Reference({ r }: { r: LedgerRow }) {
  if (!r.requestId && !r.taskId) return <span className="text-zinc-500">—</span>;
  return (
    <span className="flex flex-col items-start gap-0.5">
      {r.requestId && (
        <InspectorLink target={{ request: r.requestId }}>
          <Mono>{r.requestId}</Mono>
        </InspectorLink>
      )}
      {r.taskId && (
        <InspectorLink target={{ task: r.taskId }}>
          <Mono>{r.taskId}</Mono>
        </InspectorLink>
      )}
    </span>
  );
}

const COLUMNS: Column<LedgerRow>[] = [
  { header: "Time", cell: (r) => <Time iso={r.createdAt} /> },
  { header: "Type", cell: (r) => <Badge tone={KIND[r.kind]?.tone ?? "neutral"}>{KIND[r.kind]?.label ?? r.kind}</Badge> },
  {
    header: "Amount",
    align: "right",
    className: (r) => (r.deltaMicroUsd >= 0 ? "text-emerald-700" : "text-zinc-900"),
    cell: (r) => `${r.deltaMicroUsd >= 0 ? "+" : "−"}${usd(Math.abs(r.deltaMicroUsd), true)}`,
  },
  { header: "Balance after", align: "right", cell: (r) => usd(r.balanceAfterMicroUsd, true) },
  { header: "Reference", cell: (r) => <Reference r={r} /> },
  { header: "Note", className: "max-w-72 truncate text-zinc-500", props: (r) => ({ title: r.note ?? undefined }), cell: (r) => r.note ?? "" },
];

export function LedgerTable() {
  const q = useLedger();
  const rows = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card>
      <CardHeader
        title="Ledger"
        description="Every change to your balance, newest first."
        action={
          <a href="/api/console/ledger?format=csv" className="inline-flex h-8 items-center rounded-md border border-zinc-300 bg-white px-3 text-xs font-medium text-zinc-800 shadow-sm hover:bg-zinc-50" download>
            Export CSV
          </a>
        }
      />
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorState error={q.error} retry={() => q.refetch()} />
      ) : rows.length === 0 ? (
        <Empty title="No balance changes yet">Top-ups, charges and refunds appear here.</Empty>
      ) : (
        <DataTable
          label="Ledger"
          rows={rows}
          rowKey={(r) => r.id}
          rowTestId="ledger-row"
          columns={COLUMNS}
          hasMore={q.hasNextPage}
          loadingMore={q.isFetchingNextPage}
          onMore={() => q.fetchNextPage()}
        />
      )}
    </Card>
  );
}
