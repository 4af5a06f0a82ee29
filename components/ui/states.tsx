import type { ReactNode } from "react";
import { Button } from "./button";

/**
 * Where data must still load in the browser: grey bars in the shape of a table or card
 * (a header line, then rows), so the content replaces them without moving the page much.
 */
export function Loading({ label = "Loading…", rows = 4 }: { label?: string; rows?: number }) {
  return (
    <div role="status" className="space-y-3 px-5 py-4" data-testid="skeleton">
      <span className="sr-only">{label}</span>
      <div className="h-3 w-1/3 animate-pulse rounded bg-zinc-200" aria-hidden="true" />
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="flex gap-4" aria-hidden="true">
          <div className="h-4 w-24 animate-pulse rounded bg-zinc-100" />
          <div className="h-4 flex-1 animate-pulse rounded bg-zinc-100" />
          <div className="h-4 w-16 animate-pulse rounded bg-zinc-100" />
        </div>
      ))}
    </div>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof Error ? error.message : "Something went wrong.";
  return (
    <div role="alert" className="flex flex-col items-center gap-3 px-4 py-10 text-center">
      <p className="text-sm font-medium text-zinc-900">Could not load this</p>
      <p className="max-w-md text-sm text-zinc-500">{message}</p>
      {retry && (
        <Button variant="secondary" size="sm" onClick={retry}>
          Try again
        </Button>
      )}
    </div>
  );
}

export function Empty({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 px-4 py-12 text-center">
      <p className="text-sm font-medium text-zinc-900">{title}</p>
      {children && <div className="max-w-md text-sm text-zinc-500">{children}</div>}
      {action && <div className="mt-2">{action}</div>}
    </div>
  );
}

/** Renders loading, error or empty states for a query, else its children. */
export function QueryState<T>({
  query,
  empty,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  empty?: (data: T) => ReactNode | null;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError || query.data === undefined) return <ErrorState error={query.error} retry={() => query.refetch()} />;
  const e = empty?.(query.data);
  return <>{e ?? children(query.data)}</>;
}
