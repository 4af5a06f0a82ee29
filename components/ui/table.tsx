"use client";
import { useEffect, useRef, type ReactNode, type ThHTMLAttributes, type TdHTMLAttributes } from "react";
import { cx } from "./cx";

/**
 * A data table. Wide screens: a focusable region that scrolls sideways (keyboard users can
 * scroll it), with an optional sticky action column. Under 640 px each row becomes a card of
 * "label: value" lines (app/globals.css, `table.cards`), labelled from each cell's `label`.
 */
export function Table({ children, label }: { children: ReactNode; label: string }) {
  const ref = useRef<HTMLTableElement>(null);
  // Cells without an explicit `label` take their column header's text (for the phone cards).
  useEffect(() => {
    const t = ref.current;
    if (!t) return;
    const heads = [...t.querySelectorAll("thead th")].map((th) => th.textContent?.trim() ?? "");
    for (const row of t.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, i) => {
        if (cell.tagName === "TD" && !cell.classList.contains("cell-actions") && !cell.hasAttribute("data-label") && heads[i] && (cell as HTMLTableCellElement).colSpan === 1) cell.setAttribute("data-label", heads[i]!);
      });
    }
  });
  return (
    // `relative` contains absolutely positioned cells' content (sr-only labels), which would
    // otherwise widen the whole page on phones.
    <div className="relative overflow-x-auto focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-zinc-900" role="region" aria-label={label} tabIndex={0}>
      <table ref={ref} className="cards min-w-full divide-y divide-zinc-200 text-sm" aria-label={label}>
        {children}
      </table>
    </div>
  );
}

/** `sticky`: the action column, pinned to the right edge so actions never scroll away. */
export function Th({ className, children, sticky, ...rest }: ThHTMLAttributes<HTMLTableCellElement> & { sticky?: boolean }) {
  return (
    <th
      scope="col"
      className={cx(
        "whitespace-nowrap bg-zinc-50 px-4 py-2.5 text-left text-xs font-medium uppercase tracking-wide text-zinc-600",
        sticky && "sticky right-0 z-10 shadow-[-1px_0_0_var(--color-zinc-200)]",
        className,
      )}
      {...rest}
    >
      {children}
    </th>
  );
}

export function Td({ className, children, label, sticky, ...rest }: TdHTMLAttributes<HTMLTableCellElement> & { label?: string; sticky?: boolean }) {
  return (
    <td
      data-label={label}
      className={cx("whitespace-nowrap px-4 py-3 text-zinc-700", sticky && "cell-actions sticky right-0 z-10 bg-white shadow-[-1px_0_0_var(--color-zinc-200)]", className)}
      {...rest}
    >
      {children}
    </td>
  );
}

export function Mono({ children, className }: { children: ReactNode; className?: string }) {
  return <code className={cx("font-mono text-xs text-zinc-700", className)}>{children}</code>;
}
