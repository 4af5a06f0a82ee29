"use client";
/**
 * Light / dark / the system's setting, remembered in this browser. The choice is a class on
 * <html> (app/globals.css); with none, the system setting applies through a media query, so
 * the first paint is right without an inline script.
 */
import { useEffect, useState } from "react";

type Theme = "system" | "light" | "dark";
const NEXT: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };
const LABEL: Record<Theme, string> = { system: "Theme: system", light: "Theme: light", dark: "Theme: dark" };

function apply(t: Theme) {
  const root = document.documentElement;
  root.classList.toggle("light", t === "light");
  root.classList.toggle("dark", t === "dark");
}

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>("system");
  useEffect(() => {
    const saved = localStorage.getItem("theme");
    const t: Theme = saved === "light" || saved === "dark" ? saved : "system";
    setTheme(t);
    apply(t);
  }, []);
  function cycle() {
    const t = NEXT[theme];
    setTheme(t);
    apply(t);
    if (t === "system") localStorage.removeItem("theme");
    else localStorage.setItem("theme", t);
  }
  return (
    <button
      type="button"
      onClick={cycle}
      className="rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900"
      aria-label={`${LABEL[theme]} (change)`}
      title={LABEL[theme]}
      data-testid="theme-toggle"
    >
      <svg viewBox="0 0 24 24" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="1.75" aria-hidden="true">
        {theme === "dark" ? (
          <path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z" strokeLinejoin="round" />
        ) : theme === "light" ? (
          <path d="M12 4V2m0 20v-2m8-8h2M2 12h2m13.66-5.66 1.41-1.41M4.93 19.07l1.41-1.41m0-11.32L4.93 4.93m14.14 14.14-1.41-1.41M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z" strokeLinecap="round" />
        ) : (
          <path d="M4 5h16v11H4zM8 20h8M12 16v4" strokeLinejoin="round" />
        )}
      </svg>
    </button>
  );
}
