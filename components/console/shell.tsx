"use client";
import Link from "next/link";
import { usePathname } from "@/components/navigation";
import { signOut } from "next-auth/react";
import { useEffect, useId, useState, type ReactNode } from "react";
import { InspectorProvider } from "../inspector/request-inspector";
import { cx } from "../ui/cx";
import { CloseButton, Drawer } from "../ui/drawer";
import { Money } from "../ui/money";
import { can } from "@/lib/orgs/roles";
import { api } from "./api";
import { usdProse } from "./format";
import { useMe } from "./hooks";
import { ThemeToggle } from "./theme-toggle";
import type { Capability, SessionUserView } from "./types";

/** `cap`: shown only to roles with that capability in the active organisation (lib/orgs/roles.ts). */
const NAV: { href: string; label: string; icon: string; admin?: boolean; cap?: Capability }[] = [
  { href: "/overview", label: "Overview", icon: "M3 12l9-9 9 9M5 10v10h5v-6h4v6h5V10" },
  { href: "/keys", label: "API Keys", icon: "M15 7a2 2 0 1 1 4 0 2 2 0 0 1-4 0Zm-1.5 3.5L4 20m3-3 2 2m1-5 2 2", cap: "keys.own" },
  { href: "/playground", label: "Playground", icon: "M5 4l14 8-14 8V4z", cap: "keys.own" },
  { href: "/usage", label: "Usage", icon: "M4 20V10m6 10V4m6 16v-7m4 7H2" },
  { href: "/batches", label: "Batches", icon: "M4 6h16M4 12h16M4 18h10" },
  { href: "/webhooks", label: "Webhooks", icon: "M18 16.98h-5.99c-1.1 0-1.95.94-2.48 1.9A4 4 0 0 1 2 17c.01-.7.2-1.4.57-2M6 17l3.13-5.78c.53-.97.1-2.18-.5-3.1a4 4 0 1 1 6.89-4.06M12 6l3.13 5.73C15.66 12.7 16.9 13 18 13a4 4 0 0 1 0 8", cap: "webhooks" },
  { href: "/billing", label: "Billing", icon: "M3 7h18v10H3zM3 10h18M7 15h3", cap: "billing" },
  { href: "/organisation", label: "Organisation", icon: "M16 19v-1a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v1M9 10a3 3 0 1 0 0-6 3 3 0 0 0 0 6Zm13 9v-1a4 4 0 0 0-3-3.87M16 4.13a3 3 0 0 1 0 5.74" },
  { href: "/docs", label: "Docs", icon: "M6 3h9l4 4v14H6zM14 3v5h5M9 13h7M9 17h7" },
  { href: "/admin", label: "Admin", icon: "M12 3l8 4v5c0 5-3.5 8-8 9-4.5-1-8-4-8-9V7l8-4z", admin: true },
];

/** Pages whose tables use the whole window width. */
const WIDE = ["/usage", "/batches", "/keys", "/webhooks", "/admin", "/billing", "/overview", "/organisation", "/playground"];

function Icon({ d }: { d: string }) {
  return (
    <svg viewBox="0 0 24 24" className="h-4 w-4 shrink-0" fill="none" stroke="currentColor" strokeWidth="1.75" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d={d} />
    </svg>
  );
}

function NavLinks({ user, onNavigate }: { user: SessionUserView; onNavigate?: () => void }) {
  const path = usePathname();
  return (
    <ul className="space-y-0.5">
      {NAV.filter((n) => (!n.admin || user.role === "admin") && (!n.cap || can(user.orgRole, n.cap))).map((n) => {
        const active = path === n.href || path.startsWith(`${n.href}/`);
        return (
          <li key={n.href}>
            <Link
              href={n.href}
              onClick={onNavigate}
              aria-current={active ? "page" : undefined}
              className={cx(
                "flex items-center gap-2.5 rounded-md px-2.5 py-1.5 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-zinc-900",
                active ? "bg-zinc-200/70 text-zinc-900" : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900",
              )}
            >
              <Icon d={n.icon} />
              {n.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

function BalancePill() {
  const me = useMe();
  const m = me.data?.member;
  if (me.data && !me.data.account) {
    // Members do not see the organisation's balance: their own month against their cap instead.
    return (
      <span className="rounded-md border border-zinc-200 bg-white px-2.5 py-1 text-xs font-medium tabular-nums text-zinc-700" data-testid="header-member-spend">
        <Money micro={m?.monthSpentMicroUsd ?? 0} />
        {m?.monthlyCapMicroUsd != null && (
          <>
            {` / ${usdProse(m.monthlyCapMicroUsd)}`}
          </>
        )}
        <span className="ml-1 font-normal text-zinc-500">this month</span>
      </span>
    );
  }
  return (
    <Link href="/billing" className="rounded-md border border-zinc-200 bg-white px-2.5 py-1 text-xs font-medium tabular-nums text-zinc-700 hover:bg-zinc-50" data-testid="header-balance">
      {me.data?.account ? <Money micro={me.data.account.balanceMicroUsd} /> : "…"}
      <span className="ml-1 font-normal text-zinc-500">balance</span>
    </Link>
  );
}

/**
 * The organisation switcher: a native select (keyboard and screen readers for free). Switching
 * sets the active-organisation cookie and reloads, so no page keeps another organisation's data.
 */
function OrgSwitcher({ user }: { user: SessionUserView }) {
  const me = useMe();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const orgs = me.data?.orgs ?? [];
  const label = (o: { name: string; personal: boolean }) => (o.personal ? `${o.name} (personal)` : o.name);
  return (
    <div className="px-3 pb-2">
      <label htmlFor={id} className="mb-1 block text-xs font-medium text-zinc-500">
        Organisation
      </label>
      <select
        id={id}
        data-testid="org-switcher"
        className="w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900 focus-visible:outline-2 focus-visible:outline-zinc-900"
        value={user.accountId}
        disabled={busy || !orgs.length}
        onChange={async (e) => {
          const next = e.target.value;
          if (next === "__new") {
            window.location.assign("/organisation?new=1");
            return;
          }
          setBusy(true);
          setError(null);
          try {
            await api("/api/console/orgs/active", { method: "PUT", body: { accountId: next } });
            window.location.assign("/overview");
          } catch (err) {
            setError(err instanceof Error ? err.message : "Could not switch.");
            setBusy(false);
          }
        }}
      >
        {orgs.length ? (
          orgs.map((o) => (
            <option key={o.id} value={o.id}>
              {label(o)}
            </option>
          ))
        ) : (
          <option value={user.accountId}>…</option>
        )}
        <option value="__new">New organisation…</option>
      </select>
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

function UserBox({ user }: { user: SessionUserView }) {
  return (
    <div className="border-t border-zinc-200 px-3 py-3">
      <p className="truncate text-sm font-medium text-zinc-900" title={user.email}>
        {user.name || user.email}
      </p>
      <p className="truncate text-xs text-zinc-500">{user.role === "admin" ? "Admin · " : ""}{user.email}</p>
      <button
        type="button"
        onClick={() => signOut({ callbackUrl: "/signin" })}
        className="mt-2 text-xs font-medium text-zinc-600 hover:text-zinc-900 hover:underline"
      >
        Sign out
      </button>
    </div>
  );
}

function Brand() {
  return (
    <Link href="/overview" className="flex items-center gap-2 text-sm font-semibold tracking-tight text-zinc-900">
      <span className="grid h-6 w-6 place-items-center rounded-md bg-zinc-900 text-[11px] font-bold text-white">G</span>
      Generation Gateway
    </Link>
  );
}

export function ConsoleShell({ user, children }: { user: SessionUserView; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const path = usePathname();
  useEffect(() => {
    setOpen(false);
  }, [path]);
  return (
    <div className="min-h-screen bg-zinc-50">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm">
        Skip to content
      </a>
      {/* Sidebar: fixed on wide screens, a drawer on phones. */}
      <aside className="fixed inset-y-0 left-0 z-30 hidden w-60 flex-col border-r border-zinc-200 bg-zinc-50 lg:flex">
        <div className="flex h-14 items-center px-4">
          <Brand />
        </div>
        <OrgSwitcher user={user} />
        <nav aria-label="Console" className="flex-1 overflow-y-auto px-3 py-2">
          <NavLinks user={user} />
        </nav>
        <UserBox user={user} />
      </aside>
      {/* The phone drawer is a real modal (native <dialog>): Escape closes it, Tab stays inside. */}
      <Drawer open={open} onClose={() => setOpen(false)} side="left" label="Navigation">
        <div className="flex h-full flex-col bg-zinc-50">
          <div className="flex h-14 items-center justify-between px-4">
            <Brand />
            <CloseButton onClose={() => setOpen(false)} label="Close navigation" />
          </div>
          <OrgSwitcher user={user} />
          <nav aria-label="Console" className="flex-1 overflow-y-auto px-3 py-2">
            <NavLinks user={user} onNavigate={() => setOpen(false)} />
          </nav>
          <UserBox user={user} />
        </div>
      </Drawer>
      <div className="lg:pl-60">
        <header className="sticky top-0 z-20 flex h-14 items-center gap-3 border-b border-zinc-200 bg-white/90 px-4 backdrop-blur sm:px-6">
          <button
            type="button"
            className="-ml-1 rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 lg:hidden"
            aria-label="Open navigation"
            aria-expanded={open}
            onClick={() => setOpen(true)}
          >
            <svg viewBox="0 0 24 24" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
              <path d="M4 6h16M4 12h16M4 18h16" strokeLinecap="round" />
            </svg>
          </button>
          <div className="lg:hidden">
            <Brand />
          </div>
          <div className="ml-auto flex items-center gap-3">
            <Link href="/docs" className="hidden text-sm text-zinc-600 hover:text-zinc-900 sm:block">
              Docs
            </Link>
            <ThemeToggle />
            <BalancePill />
          </div>
        </header>
        {/* Data pages use the full width; reading pages keep a comfortable line length. */}
        <main id="main" className={cx("mx-auto px-4 py-6 sm:px-6 lg:py-8", WIDE.some((w) => path.startsWith(w)) ? "max-w-none" : "max-w-6xl")}>
          <InspectorProvider>{children}</InspectorProvider>
        </main>
      </div>
    </div>
  );
}
