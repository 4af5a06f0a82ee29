"use client";
/** TanStack Query hooks of the playground: its models, and the account's video tasks. */
import { useQuery } from "@tanstack/react-query";
import { api } from "../console/api";
import type { PlaygroundModel } from "@/lib/views";

export interface PlaygroundModels {
  items: PlaygroundModel[];
  publicBaseUrl: string;
}

export function usePlaygroundModels() {
  return useQuery({ queryKey: ["playground", "models"], queryFn: () => api<PlaygroundModels>("/api/playground/models"), staleTime: 60_000 });
}

/** A video task as GET /v1/videos returns it. */
export interface VideoTask {
  id: string;
  model: string;
  status: "queued" | "in_progress" | "completed" | "failed";
  progress: number;
  created_at: number;
  completed_at: number | null;
  prompt: string | null;
  size: string | null;
  seconds: string | null;
  aspect_ratio?: string;
  error: { code: string; message: string } | null;
}

export const isFinal = (s: VideoTask["status"]) => s === "completed" || s === "failed";

export function useVideoTasks() {
  return useQuery({
    queryKey: ["playground", "videos"],
    queryFn: () => api<{ data: VideoTask[] }>("/api/playground/v1/videos?limit=20"),
  });
}

/** Polls one unfinished task every 2 s through the proxy; stops for good on a final state. */
export function useVideoTask(initial: VideoTask) {
  return useQuery({
    queryKey: ["playground", "video", initial.id],
    queryFn: () => api<VideoTask>(`/api/playground/v1/videos/${encodeURIComponent(initial.id)}`),
    initialData: initial,
    // Finished tasks are never asked again: initialData stays fresh and no interval runs.
    staleTime: isFinal(initial.status) ? Infinity : 0,
    enabled: !isFinal(initial.status),
    refetchInterval: (q) => (q.state.data && isFinal(q.state.data.status) ? false : 2000),
    refetchOnWindowFocus: false,
  });
}

/** The Task object of a finished task (its cost: 0 when it failed and was refunded). */
export function useTaskObject(id: string, enabled: boolean) {
  return useQuery({
    queryKey: ["playground", "task", id],
    queryFn: () => api<{ cost: number; status: string }>(`/api/playground/v1/tasks/${encodeURIComponent(id)}`),
    enabled,
    staleTime: Infinity,
  });
}
