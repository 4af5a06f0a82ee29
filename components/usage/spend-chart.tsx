"use client";
import { usd } from "../console/format";
import type { DailySpend } from "../console/types";

const COLORS = ["var(--color-zinc-900)", "#6366f1", "#10b981", "#f59e0b", "#ef4444", "#0ea5e9", "#a855f7", "#84cc16"];

function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * Daily spend stacked by model, drawn as SVG (no chart library). A visually hidden table
 * carries the same numbers for screen readers.
 */
export function SpendChart({ data, from, to, height = 180 }: { data: DailySpend[]; from: string; to: string; height?: number }) {
  const days = daysBetween(from, to).slice(-92);
  // Models that cost nothing in the range (errors, free calls) would only clutter the legend.
  const models = [...new Set(data.filter((d) => d.costMicroUsd > 0).map((d) => d.model))].sort();
  const byDay = new Map<string, Map<string, number>>();
  for (const d of data) {
    const m = byDay.get(d.day) ?? new Map<string, number>();
    m.set(d.model, (m.get(d.model) ?? 0) + d.costMicroUsd);
    byDay.set(d.day, m);
  }
  const totals = days.map((d) => [...(byDay.get(d)?.values() ?? [])].reduce((a, b) => a + b, 0));
  const max = Math.max(...totals, 1);
  const W = 720;
  const H = height;
  const pad = { top: 8, bottom: 22, left: 0, right: 0 };
  const bw = (W - pad.left - pad.right) / Math.max(days.length, 1);
  const scale = (v: number) => ((H - pad.top - pad.bottom) * v) / max;
  const color = (m: string) => COLORS[models.indexOf(m) % COLORS.length];
  const total = totals.reduce((a, b) => a + b, 0);

  return (
    <figure className="relative">
      <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-label={`Daily spend from ${from} to ${to}: ${usd(total)} in total`}>
        <line x1={0} x2={W} y1={H - pad.bottom} y2={H - pad.bottom} stroke="var(--color-zinc-200)" />
        {days.map((d, i) => {
          let y = H - pad.bottom;
          const parts = byDay.get(d);
          return (
            <g key={d}>
              {models.map((m) => {
                const v = parts?.get(m) ?? 0;
                if (!v) return null;
                const h = Math.max(scale(v), 1);
                y -= h;
                return (
                  <rect key={m} x={pad.left + i * bw + bw * 0.15} y={y} width={bw * 0.7} height={h} rx={1.5} fill={color(m)}>
                    <title>{`${d} · ${m}: ${usd(v)}`}</title>
                  </rect>
                );
              })}
              {(i === 0 || i === days.length - 1 || i % Math.ceil(days.length / 6) === 0) && (
                // The first and last labels are anchored inside the chart, never clipped at its edges.
                <text
                  x={i === 0 ? pad.left : i === days.length - 1 ? W - pad.right : pad.left + i * bw + bw / 2}
                  y={H - 6}
                  textAnchor={i === 0 ? "start" : i === days.length - 1 ? "end" : "middle"}
                  fontSize="10"
                  fill="var(--color-zinc-500)"
                >
                  {d.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      {models.length > 0 && (
        <figcaption className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600">
          {models.map((m) => (
            <span key={m} className="inline-flex items-center gap-1.5">
              <span className="h-2 w-2 rounded-sm" style={{ background: color(m) }} aria-hidden="true" />
              <span className="font-mono">{m}</span>
            </span>
          ))}
        </figcaption>
      )}
      <table className="sr-only">
        <caption>Daily spend by model</caption>
        <thead>
          <tr>
            <th>Day</th>
            <th>Model</th>
            <th>Spend</th>
          </tr>
        </thead>
        <tbody>
          {data.map((d) => (
            <tr key={`${d.day}-${d.model}`}>
              <td>{d.day}</td>
              <td>{d.model}</td>
              <td>{usd(d.costMicroUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
