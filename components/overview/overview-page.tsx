"use client";
import Link from "next/link";
import { useSearchParams } from "@/components/navigation";
import { num, usd, usdProse } from "../console/format";
import { useMe, useOverview } from "../console/hooks";
import { Card, CardBody, CardHeader, Stat } from "../ui/card";
import { Ago, Money } from "../ui/money";
import { PageHeader } from "../ui/page-header";
import { Empty, QueryState } from "../ui/states";
import { RequestsTable } from "../usage/requests-table";
import { SpendChart } from "../usage/spend-chart";

function today() {
  return new Date().toISOString().slice(0, 10);
}
function daysAgo(n: number) {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

/** Three steps to a first billed request; hidden once all are done. */
function GettingStarted({ hasBalance, hasKey, hasRequest }: { hasBalance: boolean; hasKey: boolean; hasRequest: boolean }) {
  if (hasBalance && hasKey && hasRequest) return null;
  const steps = [
    { done: hasKey, label: "Create an API key", href: "/keys" },
    { done: hasBalance, label: "Add balance", href: "/billing" },
    { done: hasRequest, label: "Make your first request", href: "/docs" },
  ];
  return (
    <Card>
      <CardHeader title="Get started" description="One key reaches every model over the OpenAI, Anthropic and Gemini protocols." />
      <CardBody>
        <ol className="grid gap-3 sm:grid-cols-3">
          {steps.map((s, i) => (
            <li key={s.label}>
              <Link
                href={s.href}
                className="flex items-center gap-3 rounded-md border border-zinc-200 px-3 py-2.5 text-sm hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-zinc-900"
              >
                <span
                  className={`grid h-6 w-6 shrink-0 place-items-center rounded-full text-xs font-semibold ${s.done ? "bg-emerald-100 text-emerald-700" : "bg-zinc-100 text-zinc-600"}`}
                  aria-hidden="true"
                >
                  {s.done ? "✓" : i + 1}
                </span>
                <span className={s.done ? "text-zinc-500 line-through" : "font-medium text-zinc-900"}>{s.label}</span>
                <span className="sr-only">{s.done ? "(done)" : "(to do)"}</span>
              </Link>
            </li>
          ))}
        </ol>
      </CardBody>
    </Card>
  );
}

/** A member sees their own monthly cap and spend, not the organisation's balance. */
function MemberCapStat() {
  const me = useMe();
  const m = me.data?.member;
  return (
    <Stat
      label="Your spend this month"
      value={<Money micro={m?.monthSpentMicroUsd ?? 0} />}
      sub={m?.monthlyCapMicroUsd != null ? `of a ${usdProse(m.monthlyCapMicroUsd)} monthly cap` : "No monthly cap"}
      testId="overview-member-spend"
    />
  );
}

export function OverviewPage() {
  const q = useOverview();
  const welcome = useSearchParams().get("welcome");
  return (
    <>
      <PageHeader title="Overview" description="Your balance, spend over the last 30 days and the latest requests." />
      {welcome && (
        <div className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-800">
          Welcome! Three steps to your first request are below; the Docs page has copy-paste examples for curl and the official SDKs.
        </div>
      )}
      <QueryState query={q}>
        {(d) => (
          <div className="space-y-6">
            <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
              {d.balanceMicroUsd === null ? (
                <MemberCapStat />
              ) : (
                <Stat label="Balance" value={<Money micro={d.balanceMicroUsd} />} sub={d.heldMicroUsd ? `${usd(d.heldMicroUsd)} reserved by requests in flight` : <Link className="hover:underline" href="/billing">Add balance →</Link>} testId="overview-balance" />
              )}
              <Stat label="Spend · 30 days" value={<Money micro={d.last30d.costMicroUsd} />} sub={`${num(d.last30d.inputTokens + d.last30d.outputTokens)} tokens`} />
              <Stat label="Requests · 30 days" value={num(d.last30d.requests)} sub={d.last30d.errors ? (d.last30d.errors === 1 ? "1 error" : `${num(d.last30d.errors)} errors`) : "No errors"} />
              <Stat
                label="Active keys"
                value={num(d.activeKeys)}
                sub={
                  <>
                    {d.activeKeys > 0 && (
                      <span className="block" data-testid="overview-last-used">
                        Last used <Ago iso={d.keysLastUsedAt} />
                      </span>
                    )}
                    <Link className="hover:underline" href="/keys">
                      Manage keys →
                    </Link>
                  </>
                }
              />
            </div>
            <GettingStarted hasBalance={d.balanceMicroUsd === null || d.balanceMicroUsd > 0} hasKey={d.activeKeys > 0} hasRequest={d.last30d.requests > 0} />
            {d.balanceMicroUsd !== null && d.balanceMicroUsd <= 0 && (
              <div className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
                Your balance is empty, so paid requests get HTTP 402. <Link href="/billing" className="font-medium underline">Add balance</Link> to start.
              </div>
            )}
            <Card>
              <CardHeader title="Daily spend" description="By model, last 30 days (UTC)." action={<Link href="/usage" className="text-sm font-medium text-zinc-600 hover:text-zinc-900">Usage →</Link>} />
              <CardBody>
                {d.daily.length ? <SpendChart data={d.daily} from={daysAgo(29)} to={today()} /> : <Empty title="No spend yet">Requests you make with your keys show up here.</Empty>}
              </CardBody>
            </Card>
            <Card>
              <CardHeader title="Recent requests" action={<Link href="/usage" className="text-sm font-medium text-zinc-600 hover:text-zinc-900">View all →</Link>} />
              {d.recent.length ? (
                <RequestsTable rows={d.recent} compact />
              ) : (
                <Empty title="No requests yet" action={<Link href="/keys" className="text-sm font-medium text-zinc-900 underline">Create an API key</Link>}>
                  Make a call with one of your keys and it appears here within a second.
                </Empty>
              )}
            </Card>
          </div>
        )}
      </QueryState>
    </>
  );
}
