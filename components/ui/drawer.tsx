"use client";
import type { ReactNode } from "react";
import { useModal } from "./use-modal";

/**
 * A side panel that is a real modal (native <dialog>): the page behind is inert, Tab and
 * Shift+Tab cycle inside, Escape closes it and focus returns to what opened it.
 */
export function Drawer({
  open,
  onClose,
  title,
  side = "right",
  children,
  label,
}: {
  open: boolean;
  onClose: () => void;
  title?: ReactNode;
  /** Accessible name when there is no visible title. */
  label?: string;
  side?: "left" | "right";
  children: ReactNode;
}) {
  const { ref, onKeyDown } = useModal(open);
  return (
    <dialog
      ref={ref}
      onKeyDown={onKeyDown}
      // The native close event also follows our own close() below: report only a close we did not ask for.
      onClose={() => open && onClose()}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      // A click on the backdrop lands on the <dialog> element itself.
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
      aria-label={label}
      aria-labelledby={label ? undefined : "drawer-title"}
      className={`fixed inset-y-0 m-0 h-full max-h-none w-full border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-950/40 ${
        side === "right" ? "left-auto right-0 max-w-xl border-l" : "left-0 right-auto max-w-72 border-r"
      }`}
    >
      {open && (
        <div className="flex h-full flex-col">
          {title !== undefined && (
            <div className="flex items-start justify-between gap-4 border-b border-zinc-200 px-5 py-4">
              <h2 id="drawer-title" className="text-base font-semibold">
                {title}
              </h2>
              <CloseButton onClose={onClose} />
            </div>
          )}
          <div className="min-h-0 flex-1 overflow-y-auto">{children}</div>
        </div>
      )}
    </dialog>
  );
}

export function CloseButton({ onClose, label = "Close" }: { onClose: () => void; label?: string }) {
  return (
    <button type="button" onClick={onClose} className="rounded p-1 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-800" aria-label={label}>
      <svg viewBox="0 0 20 20" className="h-5 w-5" fill="currentColor" aria-hidden="true">
        <path d="M6.28 5.22a.75.75 0 0 0-1.06 1.06L8.94 10l-3.72 3.72a.75.75 0 1 0 1.06 1.06L10 11.06l3.72 3.72a.75.75 0 1 0 1.06-1.06L11.06 10l3.72-3.72a.75.75 0 0 0-1.06-1.06L10 8.94 6.28 5.22Z" />
      </svg>
    </button>
  );
}
