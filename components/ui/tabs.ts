import type { KeyboardEvent } from "react";

/**
 * The ARIA tabs keyboard pattern for a `role="tablist"` element (automatic activation):
 * Left/Right (and Up/Down) move to the previous/next tab and select it, Home/End to the first/
 * last. Tabs carry a roving tabIndex (0 on the selected one, −1 on the rest), so Tab leaves the list.
 */
export function tabListKeys(e: KeyboardEvent<HTMLElement>): void {
  const tabs = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]')];
  const i = tabs.indexOf(document.activeElement as HTMLElement);
  if (i < 0) return;
  const next = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
  if (next === undefined) return;
  e.preventDefault();
  const t = tabs[(next + tabs.length) % tabs.length]!;
  t.focus();
  t.click();
}
