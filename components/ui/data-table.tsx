"use client";
import { Fragment, type ReactNode, type TdHTMLAttributes } from "react";
import { Button } from "./button";
import { cx } from "./cx";
import { Table, Td, Th } from "./table";

/** One column: its header, how a row fills its cell, and the cell's look. */
export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Classes for the cell; a function when they depend on the row. */
  className?: string | ((row: Row) => string);
  /** Extra attributes for the cell (title, data-testid, aria-live). */
  props?: (row: Row) => TdHTMLAttributes<HTMLTableCellElement> & Record<`data-${string}`, string | undefined>;
  /** The action column: pinned right, its header read by screen readers only. */
  sticky?: boolean;
  align?: "right";
}

/**
 * A `Table` from rows and columns, with an optional "Load older" footer for paged lists.
 * Phone cards, the sticky action column and the region label come from `Table`.
 */
export function DataTable<Row>({
  label,
  rows,
  rowKey,
  columns,
  rowTestId,
  rowClassName,
  detail,
  hasMore,
  loadingMore,
  onMore,
}: {
  label: string;
  rows: readonly Row[];
  rowKey: (row: Row) => string | number;
  columns: readonly (Column<Row> | false)[];
  rowTestId?: string;
  rowClassName?: string;
  /** A full-width row under a row (an expanded row's details); null for none. */
  detail?: (row: Row) => ReactNode;
  hasMore?: boolean;
  loadingMore?: boolean;
  onMore?: () => void;
}) {
  const cols = columns.filter((c): c is Column<Row> => Boolean(c));
  const align = (c: Column<Row>) => (c.align === "right" ? "text-right" : undefined);
  return (
    <>
      <Table label={label}>
        <thead>
          <tr>
            {cols.map((c, i) => (
              <Th key={i} sticky={c.sticky} className={align(c)}>
                {c.sticky ? <span className="sr-only">{c.header}</span> : c.header}
              </Th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 bg-white">
          {rows.map((r) => {
            const more = detail?.(r);
            return (
              <Fragment key={rowKey(r)}>
                <tr data-testid={rowTestId} className={rowClassName}>
                  {cols.map((c, i) => (
                    <Td key={i} sticky={c.sticky} className={cx((c.sticky || c.align === "right") && "text-right", c.align === "right" && !c.sticky && "tabular-nums", typeof c.className === "function" ? c.className(r) : c.className)} {...c.props?.(r)}>
                      {c.cell(r)}
                    </Td>
                  ))}
                </tr>
                {more != null && more !== false && (
                  <tr className="bg-zinc-50">
                    <td colSpan={cols.length} className="px-4 py-3">
                      {more}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </Table>
      {hasMore && onMore && (
        <div className="border-t border-zinc-100 px-4 py-3 text-center">
          <Button variant="secondary" size="sm" loading={loadingMore} onClick={onMore}>
            Load older
          </Button>
        </div>
      )}
    </>
  );
}
