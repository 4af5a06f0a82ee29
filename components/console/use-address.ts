"use client";
import { useSearchParams } from "@/components/navigation";
import { useMemo, useSyncExternalStore } from "react";

const CHANGED = "console:address";

/**
 * The address's query string as the console's own view state (Usage filters, the open request
 * or task). It follows `setAddress` and Back/Forward at once: the Next.js router also follows
 * native history calls, but through its navigation transitions, and one still pending (Back to
 * an entry from before a reload fetches that page again) holds later changes back. The server
 * render, and anything the router navigates to, comes from `useSearchParams`.
 */
export function useAddressQuery(): URLSearchParams {
  const server = useSearchParams().toString();
  const query = useSyncExternalStore(subscribe, () => window.location.search.slice(1), () => server);
  return useMemo(() => new URLSearchParams(query), [query]);
}

/** A new history entry (`push`) or the current one changed (`replace`), without a server round trip. */
export function setAddress(url: string, how: "push" | "replace"): void {
  if (how === "push") window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
  window.dispatchEvent(new Event(CHANGED));
}

function subscribe(changed: () => void): () => void {
  window.addEventListener("popstate", changed);
  window.addEventListener(CHANGED, changed);
  return () => {
    window.removeEventListener("popstate", changed);
    window.removeEventListener(CHANGED, changed);
  };
}
