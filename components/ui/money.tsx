import { fullWhen, usd, usdExact, when } from "../console/format";

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

/** A timestamp in the browser's locale, the full date and time on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={fullWhen(iso)}>
      {when(iso)}
    </time>
  );
}
