"use client";
import { useSyncExternalStore } from "react";
import { ago, day, fullWhen, usd, usdExact, when } from "../console/format";

/**
 * An amount to cents, the exact figure on hover. Less than half a cent but not zero reads
 * "< $0.01", so a small spend never looks like none.
 */
export function Money({ micro, testId, className }: { micro: number | null | undefined; testId?: string; className?: string }) {
  const tiny = typeof micro === "number" && micro !== 0 && Math.abs(micro) < 5_000;
  return (
    <span title={usdExact(micro)} data-testid={testId} className={className}>
      {tiny ? `${micro < 0 ? "−" : ""}< $0.01` : usd(micro)}
    </span>
  );
}

const noSubscribe = () => () => undefined;

/**
 * False while the server renders and during hydration, true after: dates are formatted in the
 * browser's locale and time zone, which the server does not know, so server-rendered data
 * shows them a moment after hydration instead of a mismatch.
 */
export function useInBrowser(): boolean {
  return useSyncExternalStore(
    noSubscribe,
    () => true,
    () => false,
  );
}

/** A timestamp in the browser's locale, the full date and time on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  const browser = useInBrowser();
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={browser ? fullWhen(iso) : iso} suppressHydrationWarning>
      {browser ? when(iso) : iso.slice(0, 16).replace("T", " ")}
    </time>
  );
}

/** "5 minutes ago", the full date and time on hover; `never` when there is no time. */
export function Ago({ iso, never = "never" }: { iso: string | null | undefined; never?: string }) {
  const browser = useInBrowser();
  if (!iso) return <>{never}</>;
  return (
    <time dateTime={iso} title={browser ? fullWhen(iso) : iso}>
      {browser ? ago(iso) : ""}
    </time>
  );
}

/** A date without the time, the full timestamp on hover. */
export function Day({ iso }: { iso: string | null | undefined }) {
  const browser = useInBrowser();
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={browser ? fullWhen(iso) : iso}>
      {browser ? day(iso) : iso.slice(0, 10)}
    </time>
  );
}
