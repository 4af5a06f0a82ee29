/**
 * next/navigation's path and query hooks, typed for the App Router, where every console
 * component renders. The project also has a Pages API route (pages/api/gateway, decision 0078),
 * so Next types these hooks for pages as well, where they can be null; under the App Router
 * they never are.
 */
import { usePathname as pathnameHook, useSearchParams as searchParamsHook, type ReadonlyURLSearchParams } from "next/navigation";

export function usePathname(): string {
  return pathnameHook() as string;
}

export function useSearchParams(): ReadonlyURLSearchParams {
  return searchParamsHook() as ReadonlyURLSearchParams;
}
