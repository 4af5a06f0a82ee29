"use client";
import { useEffect, useRef, type KeyboardEvent } from "react";

const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";

/**
 * Opens and closes a native modal <dialog> with `open`. The browser makes the page behind inert,
 * but Tab past the last control still leaves the dialog for the browser's own toolbar; the
 * returned key handler wraps Tab and Shift+Tab around inside instead. On close, focus goes back
 * to the control that opened it (the menu button, a row's Details), also when the close came
 * from the app rather than from Escape.
 */
export function useModal(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      d.showModal();
    }
    if (!open && d.open) {
      d.close();
      if (opener.current?.isConnected) opener.current.focus();
      opener.current = null;
    }
  }, [open]);
  return { ref, onKeyDown: keepTabInside };
}

function keepTabInside(e: KeyboardEvent<HTMLElement>) {
  if (e.key !== "Tab") return;
  const items = [...e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.matches(":disabled") && el.getClientRects().length > 0);
  if (!items.length) return;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const at = document.activeElement;
  const outside = !items.includes(at as HTMLElement);
  if (e.shiftKey && (at === first || outside)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (at === last || outside)) {
    e.preventDefault();
    first.focus();
  }
}
