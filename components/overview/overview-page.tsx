"use client";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { num, usd } from "../console/format";
import { useOverview } from "../console/hooks";
import { Card, CardBody, CardHeader, Stat } from "../ui/card";
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

export function OverviewPage() {
  const q = useOverview();
  const welcome = useSearchParams().get("welcome");
  return (
    <>
      <PageHeader title="Overview" description="Your balance, spend over the last 30 days and the latest requests." />
      {welcome && (
        <div className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-800">
          Welcome! Create an API key, add balance, and make your first request — the Docs page has copy-paste examples.
        </div>
      )}
      <QueryState query={q}>
        {(d) => (
          <div className="space-y-6">
            <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
              <Stat label="Balance" value={usd(d.balanceMicroUsd)} sub={d.heldMicroUsd ? `${usd(d.heldMicroUsd)} reserved by requests in flight` : <Link className="hover:underline" href="/billing">Add balance →</Link>} testId="overview-balance" />
              <Stat label="Spend · 30 days" value={usd(d.last30d.costMicroUsd)} sub={`${num(d.last30d.inputTokens + d.last30d.outputTokens)} tokens`} />
              <Stat label="Requests · 30 days" value={num(d.last30d.requests)} sub={d.last30d.errors ? (d.last30d.errors === 1 ? "1 error" : `${num(d.last30d.errors)} errors`) : "No errors"} />
              <Stat label="Active keys" value={num(d.activeKeys)} sub={<Link className="hover:underline" href="/keys">Manage keys →</Link>} />
            </div>
            {d.balanceMicroUsd <= 0 && (
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
