"use client";
import { usd } from "../console/format";
import { InspectorLink } from "../inspector/request-inspector";
import { Time } from "../ui/money";
import { useLedger } from "../console/hooks";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { Empty, ErrorState, Loading } from "../ui/states";
import { Mono, Table, Td, Th } from "../ui/table";

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
        <>
          <Table label="Ledger">
            <thead>
              <tr>
                <Th>Time</Th>
                <Th>Type</Th>
                <Th className="text-right">Amount</Th>
                <Th className="text-right">Balance after</Th>
                <Th>Reference</Th>
                <Th>Note</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {rows.map((r) => (
                <tr key={r.id} data-testid="ledger-row">
                  <Td>
                    <Time iso={r.createdAt} />
                  </Td>
                  <Td>
                    <Badge tone={KIND[r.kind]?.tone ?? "neutral"}>{KIND[r.kind]?.label ?? r.kind}</Badge>
                  </Td>
                  <Td className={`text-right tabular-nums ${r.deltaMicroUsd >= 0 ? "text-emerald-700" : "text-zinc-900"}`}>
                    {r.deltaMicroUsd >= 0 ? "+" : "−"}
                    {usd(Math.abs(r.deltaMicroUsd), true)}
                  </Td>
                  <Td className="text-right tabular-nums">{usd(r.balanceAfterMicroUsd, true)}</Td>
                  <Td>
                    {r.requestId || r.taskId ? (
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
                    ) : (
                      <span className="text-zinc-500">—</span>
                    )}
                  </Td>
                  <Td className="max-w-72 truncate text-zinc-500" title={r.note ?? undefined}>
                    {r.note ?? ""}
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
