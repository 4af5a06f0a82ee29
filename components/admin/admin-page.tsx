"use client";
import { useRouter } from "next/navigation";
import { usePathname, useSearchParams } from "@/components/navigation";
import { cx } from "../ui/cx";
import { PageHeader } from "../ui/page-header";
import { AliasesTab } from "./aliases-tab";
import { AuditTab } from "./audit-tab";
import { CodesTab } from "./codes-tab";
import { GuardrailsTab } from "./guardrails-tab";
import { ModelsTab } from "./models-tab";
import { UpstreamsTab } from "./upstreams-tab";
import { UsersTab } from "./users-tab";
import { tabListKeys } from "../ui/tabs";

const TABS = [
  { id: "users", label: "Users" },
  { id: "upstreams", label: "Upstreams" },
  { id: "models", label: "Models & prices" },
  { id: "aliases", label: "Aliases" },
  { id: "guardrails", label: "Guardrails" },
  { id: "codes", label: "Redeem codes" },
  { id: "audit", label: "Audit log" },
] as const;

export function AdminPage() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const tab = (TABS.find((t) => t.id === params.get("tab"))?.id ?? "users") as (typeof TABS)[number]["id"];
  return (
    <>
      <PageHeader title="Admin" description="Users and balances, upstream providers, models and prices. Changes apply to the running gateway at once and are recorded in the audit log." />
      <div role="tablist" onKeyDown={tabListKeys} aria-label="Admin sections" className="mb-6 flex gap-1 overflow-x-auto border-b border-zinc-200">
        {TABS.map((t) => (
          <button
            key={t.id}
            role="tab"
            type="button"
            aria-selected={tab === t.id}
              tabIndex={tab === t.id ? 0 : -1}
            onClick={() => router.replace(`${pathname}?tab=${t.id}`)}
            className={cx("-mb-px whitespace-nowrap border-b-2 px-3 py-2 text-sm font-medium", tab === t.id ? "border-zinc-900 text-zinc-900" : "border-transparent text-zinc-500 hover:text-zinc-800")}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel">
        {tab === "users" && <UsersTab />}
        {tab === "upstreams" && <UpstreamsTab />}
        {tab === "models" && <ModelsTab />}
        {tab === "aliases" && <AliasesTab />}
        {tab === "guardrails" && <GuardrailsTab />}
        {tab === "codes" && <CodesTab />}
        {tab === "audit" && <AuditTab />}
      </div>
    </>
  );
}
