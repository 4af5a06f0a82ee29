"use client";
/** One video task: live status and progress (polled every 2 s until final), then a seekable player and download, or the failure and its refund. */
import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { usd, usdProse } from "../console/format";
import { taskHoldMicro } from "@/lib/playground/media-forms";
import type { PlaygroundModel } from "@/lib/views";
import { proxyUrl } from "./gateway-fetch";
import { isFinal, useTaskObject, useVideoTask, type VideoTask } from "./use-playground";

const LABEL: Record<VideoTask["status"], string> = { queued: "Queued", in_progress: "In progress", completed: "Completed", failed: "Failed" };
const TONE = { queued: "neutral", in_progress: "blue", completed: "green", failed: "red" } as const;

export function TaskCard({ task, models }: { task: VideoTask; models: PlaygroundModel[] }) {
  const q = useVideoTask(task);
  const t = q.data ?? task;
  const final = isFinal(t.status);
  const taskObj = useTaskObject(t.id, final);
  const qc = useQueryClient();
  const content = proxyUrl(`/v1/videos/${encodeURIComponent(t.id)}/content`);
  const model = models.find((m) => m.id === t.model);
  const held = model ? taskHoldMicro(model.price, model.family, t.seconds ?? "") : null;

  // A task that just finished changed the balance (charge settled or hold refunded).
  useEffect(() => {
    if (final && !isFinal(task.status)) void qc.invalidateQueries({ queryKey: ["me"] });
  }, [final, task.status, qc]);

  return (
    <Card className="overflow-hidden">
      <div className="space-y-3 px-4 py-3" data-testid="task-card" data-task-id={t.id} data-status={t.status}>
        <div className="flex flex-wrap items-start justify-between gap-2">
          <div className="min-w-0">
            <p className="line-clamp-2 text-sm font-medium text-zinc-900">{t.prompt ?? "(no prompt)"}</p>
            <p className="mt-0.5 text-xs text-zinc-500">
              {t.model} · {t.size ?? t.aspect_ratio ?? ""} · {t.seconds ? `${t.seconds} s` : ""} · {new Date(t.created_at * 1000).toLocaleString()} · <span className="font-mono">{t.id}</span>
            </p>
          </div>
          <Badge tone={TONE[t.status]}>{LABEL[t.status]}</Badge>
        </div>
        {!final && (
          <div>
            <div className="mb-1 flex justify-between text-xs text-zinc-500">
              <span>{t.status === "queued" ? "Waiting for the provider…" : "Generating…"}</span>
              <span className="tabular-nums" data-testid="task-progress-label">{t.progress} %</span>
            </div>
            <div className="h-2 overflow-hidden rounded-full bg-zinc-100" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={t.progress} aria-label="Video progress" data-testid="task-progress">
              <div className="h-full rounded-full bg-zinc-900 transition-[width] duration-700" style={{ width: `${t.progress}%` }} />
            </div>
          </div>
        )}
        {t.status === "completed" && (
          <div className="space-y-2">
            <div className="h-2 overflow-hidden rounded-full bg-emerald-100" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={100} aria-label="Video progress" data-testid="task-progress">
              <div className="h-full w-full rounded-full bg-emerald-600" />
            </div>
            <video controls preload="metadata" src={content} className="aspect-video w-full rounded-md bg-black" data-testid="task-video" />
            <div className="flex flex-wrap items-center gap-3 text-xs text-zinc-500">
              <a href={content} download={`${t.id}.mp4`} className="rounded-md border border-zinc-300 bg-white px-2.5 py-1 font-medium text-zinc-800 hover:bg-zinc-50" data-testid="task-download">
                Download MP4
              </a>
              {taskObj.data && <span>Cost {usdProse(Math.round(taskObj.data.cost * 1_000_000))}</span>}
            </div>
          </div>
        )}
        {t.status === "failed" && (
          <div className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm" data-testid="task-failed">
            <p className="font-medium text-red-800">The video could not be generated</p>
            <p className="mt-0.5 text-red-700">{t.error?.message ?? "The provider failed this task."}</p>
            <p className="mt-1 font-medium text-emerald-700" data-testid="task-refunded">
              Refunded{held !== null ? ` ${usdProse(held)}` : ""} to your balance — you were not charged.
            </p>
          </div>
        )}
        {q.isError && !final && <p className="text-xs text-amber-700">Could not refresh the status; retrying…</p>}
      </div>
    </Card>
  );
}
