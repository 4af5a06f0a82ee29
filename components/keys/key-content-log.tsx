"use client";
/** A key's content logging (owners and admins): the organisation's, or narrower (docs/content-logs.md). */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ContentLogMode } from "@/lib/values";
import { api } from "../console/api";
import type { KeyView } from "../console/types";

export function KeyContentLog({ k }: { k: KeyView }) {
  const qc = useQueryClient();
  const set = useMutation({
    mutationFn: (mode: ContentLogMode | null) => api(`/api/console/keys/${encodeURIComponent(k.id)}/content-log`, { method: "PUT", body: { mode } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["keys"] }),
  });
  return (
    <label className="mt-1 block text-[11px] text-zinc-500">
      content log{" "}
      <select
        aria-label={`Content logging of ${k.name}`}
        className="rounded border border-zinc-200 bg-transparent text-[11px]"
        value={k.contentLogMode ?? ""}
        disabled={set.isPending}
        onChange={(e) => set.mutate((e.target.value || null) as ContentLogMode | null)}
      >
        <option value="">organisation&apos;s</option>
        <option value="metadata">metadata only</option>
        <option value="off">off</option>
      </select>
      {set.isError && <span className="text-red-600"> not saved</span>}
    </label>
  );
}
