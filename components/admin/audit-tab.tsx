"use client";
import { when } from "../console/format";
import { useAudit } from "../console/hooks";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { Empty, ErrorState, Loading } from "../ui/states";
import { Mono, Table, Td, Th } from "../ui/table";

export function AuditTab() {
  const q = useAudit();
  const rows = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card>
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorState error={q.error} retry={() => q.refetch()} />
      ) : rows.length === 0 ? (
        <Empty title="Nothing recorded yet" />
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
                <tr key={r.id} data-testid="audit-row">
                  <Td>{when(r.createdAt)}</Td>
                  <Td>{r.actor}</Td>
                  <Td>
                    <Mono>{r.action}</Mono>
                  </Td>
                  <Td>{r.targetId ? <Mono>{r.targetId}</Mono> : "—"}</Td>
                  <Td className="min-w-72 max-w-md break-all whitespace-normal!">
                    <Mono className="text-zinc-500">{r.details ? JSON.stringify(r.details) : ""}</Mono>
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
