"use client";
import { usd } from "../console/format";
import type { DailySpend } from "../console/types";
import { Table, Td, Th } from "../ui/table";

/** What prompt caching saved per UTC day and model (cache reads × (input − cache-read price)); nothing when it saved nothing. */
export function CacheSavings({ data }: { data: DailySpend[] }) {
  const rows = data.filter((d) => (d.savedMicroUsd ?? 0) > 0).reverse();
  if (!rows.length) return null;
  return (
    <div className="mt-4" data-testid="cache-savings">
      <Table label="Saved by prompt caching">
        <thead>
          <tr>
            <Th>Day</Th>
            <Th>Model</Th>
            <Th className="text-right">Saved by caching</Th>
            <Th className="text-right">Spend</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 bg-white">
          {rows.map((d) => (
            <tr key={`${d.day} ${d.model}`}>
              <Td>{d.day}</Td>
              <Td>{d.model}</Td>
              <Td className="text-right tabular-nums text-emerald-700">{usd(d.savedMicroUsd, true)}</Td>
              <Td className="text-right tabular-nums">{usd(d.costMicroUsd, true)}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}
