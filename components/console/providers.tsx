"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { ApiError } from "./api";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            // Requests made with API keys change this data behind the browser's back: refetch on every visit.
            staleTime: 0,
            refetchOnWindowFocus: true,
            // Client errors (400–499) will not heal by retrying.
            retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
          },
        },
      }),
  );
  // When a page's data arrives fresh from the server, the header balance follows it, so the two
  // never disagree after a change made elsewhere (an API request, a top-up, an admin credit).
  useEffect(() => {
    let last = 0;
    return client.getQueryCache().subscribe((e) => {
      if (e.type !== "updated" || e.action.type !== "success" || e.query.queryKey[0] === "me") return;
      const now = Date.now();
      if (now - last < 1000) return;
      last = now;
      void client.invalidateQueries({ queryKey: ["me"] });
    });
  }, [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
