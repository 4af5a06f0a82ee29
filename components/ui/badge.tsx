import type { ReactNode } from "react";
import { cx } from "./cx";

type Tone = "neutral" | "green" | "red" | "amber" | "blue";
const TONES: Record<Tone, string> = {
  neutral: "bg-zinc-100 text-zinc-700 ring-zinc-200",
  green: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  red: "bg-red-50 text-red-700 ring-red-200",
  amber: "bg-amber-50 text-amber-800 ring-amber-200",
  blue: "bg-sky-50 text-sky-700 ring-sky-200",
};

export function Badge({ tone = "neutral", children }: { tone?: Tone; children: ReactNode }) {
  return <span className={cx("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset", TONES[tone])}>{children}</span>;
}

export function StatusBadge({ status }: { status: number }) {
  return <Badge tone={status < 300 ? "green" : status === 402 || status === 429 ? "amber" : "red"}>{status}</Badge>;
}
