import { ago, num, usd, when } from "../console/format";
import type { RequestRow } from "../console/types";
import { StatusBadge } from "../ui/badge";
import { Mono, Table, Td, Th } from "../ui/table";

export function RequestsTable({ rows, keyNames, compact }: { rows: RequestRow[]; keyNames?: Map<string, string>; compact?: boolean }) {
  return (
    <Table label="Requests">
      <thead>
        <tr>
          <Th>Time</Th>
          <Th>Model</Th>
          <Th>Route</Th>
          <Th>Status</Th>
          {!compact && <Th>Key</Th>}
          <Th className="text-right">Tokens in / out</Th>
          <Th className="text-right">Cost</Th>
          {!compact && <Th className="text-right">Latency</Th>}
        </tr>
      </thead>
      <tbody className="divide-y divide-zinc-100 bg-white" data-testid="requests-rows">
        {rows.map((r) => (
          <tr key={r.id} className="hover:bg-zinc-50" data-testid="request-row">
            <Td title={when(r.createdAt)}>
              {ago(r.createdAt)}
              {!compact && <span className="block font-mono text-[11px] text-zinc-400">{r.requestId}</span>}
            </Td>
            <Td>
              <Mono>{r.model ?? "—"}</Mono>
            </Td>
            <Td>
              <Mono className="text-zinc-500">
                {r.method} {r.route}
              </Mono>
              {r.source === "playground" && <span className="ml-1.5 text-xs text-zinc-400">playground</span>}
            </Td>
            <Td>
              <StatusBadge status={r.status} />
              {r.errorCode && <span className="ml-1.5 text-xs text-zinc-500">{r.errorCode}</span>}
            </Td>
            {!compact && (
              <Td>
                {r.keyId ? <span className="text-xs">{keyNames?.get(r.keyId) ?? <Mono>{r.keyId}</Mono>}</span> : <span className="text-xs text-zinc-400">—</span>}
              </Td>
            )}
            <Td className="text-right tabular-nums">
              {num(r.inputTokens)} / {num(r.outputTokens)}
              {(r.cacheReadTokens > 0 || r.cacheWrite5mTokens + r.cacheWrite1hTokens > 0) && (
                <span className="block text-[11px] text-zinc-500">
                  {r.cacheReadTokens > 0 && `${num(r.cacheReadTokens)} cached`}
                  {r.cacheReadTokens > 0 && r.cacheWrite5mTokens + r.cacheWrite1hTokens > 0 && " · "}
                  {r.cacheWrite5mTokens + r.cacheWrite1hTokens > 0 && `${num(r.cacheWrite5mTokens + r.cacheWrite1hTokens)} written`}
                </span>
              )}
              {r.usageNote && <span className="block text-[11px] text-amber-700" title={r.usageNote}>usage adjusted</span>}
            </Td>
            <Td className="text-right tabular-nums" data-testid="request-cost">
              {usd(r.costMicroUsd, true)}
              {r.settlement === "refunded" && <span className="text-zinc-500"> · refunded</span>}
            </Td>
            {!compact && (
              <Td className="text-right tabular-nums text-zinc-500">
                {num(r.latencyMs)} ms{r.ttftMs !== null ? <span className="block text-[11px]">TTFT {num(r.ttftMs)} ms</span> : null}
              </Td>
            )}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
