/**
 * First data rendered on the server: a page names the console routes its first screen reads,
 * they run in-process with the visitor's cookies (the same handler, checks and JSON as the
 * browser's fetch), and the answers are dehydrated into TanStack Query. The client hooks find
 * their data at once: no spinner, one round trip. A route that refuses (a role that may not see
 * it) is simply left for the client to ask, which then shows the error as before.
 */
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { cookies } from "next/headers";
import type { ReactNode } from "react";

type RouteHandler = (req: Request) => Promise<Response>;

export interface PrefetchQuery {
  /** The query key the client hook uses. */
  key: readonly unknown[];
  /** The route's GET handler and the path (with query) the client would fetch. */
  get: RouteHandler;
  path: string;
  /** For useInfiniteQuery hooks: the first page's param. */
  infinite?: { firstPageParam: unknown };
}

export async function prefetchState(queries: PrefetchQuery[]) {
  const jar = await cookies();
  const cookie = jar
    .getAll()
    .map((c) => `${c.name}=${c.value}`)
    .join("; ");
  const qc = new QueryClient();
  await Promise.all(
    queries.map(async (q) => {
      try {
        const res = await q.get(new Request(new URL(q.path, "http://console.internal"), { headers: { cookie } }));
        if (!res.ok) return;
        const data: unknown = await res.json();
        qc.setQueryData(q.key, q.infinite ? { pages: [data], pageParams: [q.infinite.firstPageParam] } : data);
      } catch {
        // The client asks again and shows whatever went wrong.
      }
    }),
  );
  return dehydrate(qc);
}

export async function Prefetch({ queries, children }: { queries: PrefetchQuery[]; children: ReactNode }) {
  return <HydrationBoundary state={await prefetchState(queries)}>{children}</HydrationBoundary>;
}
