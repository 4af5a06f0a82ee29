/**
 * New background work in this process: a video submitted, a webhook queued, a batch created.
 * The worker and the batch job sleep longer while they find nothing (lib/tasks/worker.ts,
 * lib/runtime/jobs.ts); whoever makes work here wakes them, so it starts at once. Work made on
 * another instance is found at the idle sleeper's next look, at most a few seconds later.
 */
import { processSingleton } from "../process-singleton";

const listeners = processSingleton("tasks.wake", () => new Set<() => void>());

/** Calls `fn` on every wakeWorkers() until the returned function is called. */
export function onWake(fn: () => void): () => void {
  listeners().add(fn);
  return () => void listeners().delete(fn);
}

/** Lets a submission, a queued webhook or a new batch start work now instead of at the next look. */
export function wakeWorkers(): void {
  for (const fn of listeners()) fn();
}
