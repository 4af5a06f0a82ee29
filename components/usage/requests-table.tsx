"use client";
import { useInspector } from "../inspector/request-inspector";
import { num, usd } from "../console/format";
import type { RequestRow } from "../console/types";
import { StatusBadge } from "../ui/badge";
import { Time } from "../ui/money";
import { Mono, Table, Td, Th } from "../ui/table";

/**
 * Requests lead with Time · Model · Status · Cost; everything else (key, route, tokens,
 * latency, upstream, price) is in the request inspector, opened by the row's Details button.
 */
export function RequestsTable({ rows, keyNames, compact }: { rows: RequestRow[]; keyNames?: Map<string, string>; compact?: boolean }) {
  const inspector = useInspector();
  return (
    <Table label="Requests">
      <thead>
        <tr>
          <Th>Time</Th>
          <Th>Model</Th>
          <Th>Status</Th>
          <Th className="text-right">Cost</Th>
          {!compact && <Th className="hidden xl:table-cell">Key</Th>}
          {!compact && <Th className="hidden text-right xl:table-cell">Tokens in / out</Th>}
          <Th sticky>
            <span className="sr-only">Details</span>
          </Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-zinc-100 bg-white" data-testid="requests-rows">
        {rows.map((r) => (
          <tr key={r.id} className="hover:bg-zinc-50" data-testid="request-row">
            <Td label="Time">
              <Time iso={r.createdAt} />
            </Td>
            <Td label="Model">
              <Mono>{r.model ?? "—"}</Mono>
              {r.source === "playground" && <span className="ml-1.5 text-xs text-zinc-600">playground</span>}
            </Td>
            <Td label="Status">
              <StatusBadge status={r.status} />
              {r.errorCode && <span className="ml-1.5 text-xs text-zinc-600">{r.errorCode}</span>}
            </Td>
            <Td label="Cost" className="text-right tabular-nums" data-testid="request-cost">
              {usd(r.costMicroUsd, true)}
              {r.settlement === "refunded" && <span className="text-zinc-600"> · refunded</span>}
            </Td>
            {!compact && (
              <Td label="Key" className="hidden xl:table-cell">
                {r.keyId ? <span className="text-xs">{keyNames?.get(r.keyId) ?? <Mono>{r.keyId}</Mono>}</span> : <span className="text-xs text-zinc-600">—</span>}
              </Td>
            )}
            {!compact && (
              <Td label="Tokens in / out" className="hidden text-right tabular-nums xl:table-cell">
                {num(r.inputTokens)} / {num(r.outputTokens)}
                {(r.cacheReadTokens > 0 || r.cacheWrite5mTokens + r.cacheWrite1hTokens > 0) && (
                  <span className="block text-[11px] text-zinc-600">
                    {r.cacheReadTokens > 0 && `${num(r.cacheReadTokens)} cached`}
                    {r.cacheReadTokens > 0 && r.cacheWrite5mTokens + r.cacheWrite1hTokens > 0 && " · "}
                    {r.cacheWrite5mTokens + r.cacheWrite1hTokens > 0 && `${num(r.cacheWrite5mTokens + r.cacheWrite1hTokens)} written`}
                  </span>
                )}
                {r.usageNote && (
                  <span className="block text-[11px] text-amber-700" title={r.usageNote}>
                    usage adjusted
                  </span>
                )}
              </Td>
            )}
            <Td sticky className="text-right">
              <button
                type="button"
                className="rounded-md px-2 py-1 text-xs font-medium text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-zinc-900"
                onClick={() => inspector.open(r.requestId)}
                aria-label={`Details of request ${r.requestId}`}
                data-testid="request-details"
              >
                Details
              </button>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
