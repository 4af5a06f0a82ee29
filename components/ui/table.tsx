import type { ReactNode, ThHTMLAttributes, TdHTMLAttributes } from "react";
import { cx } from "./cx";

/** A table that scrolls sideways on narrow screens instead of squeezing its columns. */
export function Table({ children, label }: { children: ReactNode; label: string }) {
  return (
    // `relative` contains absolutely positioned cells' content (sr-only labels), which would
    // otherwise widen the whole page on phones.
    <div className="relative overflow-x-auto">
      <table className="min-w-full divide-y divide-zinc-200 text-sm" aria-label={label}>
        {children}
      </table>
    </div>
  );
}

export function Th({ className, children, ...rest }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th scope="col" className={cx("whitespace-nowrap bg-zinc-50 px-4 py-2.5 text-left text-xs font-medium uppercase tracking-wide text-zinc-500", className)} {...rest}>
      {children}
    </th>
  );
}

export function Td({ className, children, ...rest }: TdHTMLAttributes<HTMLTableCellElement>) {
  return (
    <td className={cx("whitespace-nowrap px-4 py-3 text-zinc-700", className)} {...rest}>
      {children}
    </td>
  );
}

export function Mono({ children, className }: { children: ReactNode; className?: string }) {
  return <code className={cx("font-mono text-xs text-zinc-700", className)}>{children}</code>;
}
