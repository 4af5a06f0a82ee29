"use client";
import { usePathname } from "@/components/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { num, usd } from "../console/format";
import { useDailySpend, useKeys, useMe, useModels, usageQuery, useUsage } from "../console/hooks";
import { usageFilters } from "../console/query-string";
import { setAddress, useAddressQuery } from "../console/use-address";
import { useMembers } from "../organisation/hooks";
import type { UsageFilters } from "../console/types";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader, Stat } from "../ui/card";
import { Money } from "../ui/money";
import { SelectField, TextField } from "../ui/field";
import { PageHeader } from "../ui/page-header";
import { Empty, ErrorState, Loading } from "../ui/states";
import { CacheSavings } from "./cache-savings";
import { RequestsTable } from "./requests-table";
import { SpendChart } from "./spend-chart";
import { TasksCard } from "./tasks-card";


function isoDay(offsetDays = 0) {
  return new Date(Date.now() - offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The filters apply as they are picked and live in the address, so a filtered view survives a
 * reload and can be shared. Each filter changed is one history entry (Back undoes it); changing
 * the same filter again replaces that entry, so arrowing through a select or typing a date does
 * not fill the history. Dates apply once they stop changing, and only as a valid range.
 */
function useFilterAddress() {
  const params = useAddressQuery();
  const pathname = usePathname();
  const filters: UsageFilters = useMemo(() => usageFilters((k) => params.get(k)), [params]);
  const last = useRef<keyof UsageFilters | null>(null);
  useEffect(() => {
    const forget = () => (last.current = null);
    window.addEventListener("popstate", forget);
    return () => window.removeEventListener("popstate", forget);
  }, []);
  /** `change` gets the filters in the address when it runs (a date's delayed change must not undo a pick made meanwhile). */
  function go(change: (now: UsageFilters) => UsageFilters, field: keyof UsageFilters | null) {
    const now = usageFilters((k) => new URLSearchParams(window.location.search).get(k));
    const url = `${pathname}${usageQuery(change(now))}`;
    setAddress(url, field && field === last.current ? "replace" : "push");
    last.current = field;
  }
  return { filters, go };
}

export function UsagePage() {
  const { filters, go } = useFilterAddress();
  const [dates, setDates] = useState({ from: filters.from ?? "", to: filters.to ?? "" });
  const [dateError, setDateError] = useState<string>();
  const dateTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    setDates({ from: filters.from ?? "", to: filters.to ?? "" });
    setDateError(undefined);
  }, [filters.from, filters.to]);
  useEffect(() => () => clearTimeout(dateTimer.current), []);
  const usage = useUsage(filters);
  const daily = useDailySpend(filters);
  const keys = useKeys();
  const models = useModels();
  const me = useMe();
  // Spend per member: for roles that see everyone's usage, in organisations with more than one.
  const seesAll = me.data?.org.capabilities.includes("usage.all") ?? false;
  const members = useMembers(seesAll);
  const showMembers = seesAll && (members.data?.items.length ?? 0) > 1;
  const keyNames = useMemo(() => new Map((keys.data?.items ?? []).map((k) => [k.id, k.name || `${k.prefix}…${k.last4}`])), [keys.data]);

  const pick = (k: keyof UsageFilters) => (e: { target: { value: string } }) => go((now) => ({ ...now, [k]: e.target.value || undefined }), k);

  function pickDate(k: "from" | "to", value: string) {
    const next = { ...dates, [k]: value };
    setDates(next);
    clearTimeout(dateTimer.current);
    if (next.from && next.to && next.from > next.to) return setDateError("“From” must be on or before “To”.");
    setDateError(undefined);
    dateTimer.current = setTimeout(() => go((now) => ({ ...now, from: next.from || undefined, to: next.to || undefined }), k), 400);
  }

  function clear() {
    clearTimeout(dateTimer.current);
    go(() => ({}), null);
  }

  const rows = usage.data?.pages.flatMap((p) => p.items) ?? [];
  const totals = usage.data?.pages[0]?.totals;

  return (
    <>
      <PageHeader
        title="Usage"
        description="Every request made with your keys or in the playground: tokens, cost and latency. Prompts and outputs are never stored."
        actions={
          <a href={`/api/console/usage/export${usageQuery(filters)}`} download className="inline-flex h-9 items-center rounded-md border border-zinc-300 bg-white px-4 text-sm font-medium text-zinc-800 shadow-sm hover:bg-zinc-50">
            Export CSV
          </a>
        }
      />
      <Card className="mb-6">
        <form onSubmit={(e) => e.preventDefault()} className="grid grid-cols-2 gap-x-3 gap-y-4 px-4 py-4 *:min-w-0 sm:gap-x-4 sm:px-5 lg:grid-cols-4" aria-label="Filters">
          <SelectField label="Source" value={filters.source ?? ""} onChange={pick("source")}>
            <option value="">API and playground</option>
            <option value="api">API keys</option>
            <option value="playground">Playground</option>
          </SelectField>
          <SelectField label="Key" value={filters.keyId ?? ""} onChange={pick("keyId")}>
            <option value="">All keys</option>
            {keys.data?.items.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name || k.id} ({k.prefix}…{k.last4})
              </option>
            ))}
          </SelectField>
          {showMembers && (
            <SelectField label="Member" value={filters.memberId ?? ""} onChange={pick("memberId")}>
              <option value="">All members</option>
              {members.data?.items.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.name || m.email}
                </option>
              ))}
            </SelectField>
          )}
          <SelectField label="Model" value={filters.model ?? ""} onChange={pick("model")}>
            <option value="">All models</option>
            {models.data?.items.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
            {filters.model && !models.data?.items.some((m) => m.id === filters.model) && <option value={filters.model}>{filters.model}</option>}
          </SelectField>
          <SelectField label="Status" value={filters.status ?? ""} onChange={pick("status")}>
            <option value="">Any status</option>
            <option value="ok">Success (2xx)</option>
            <option value="error">Errors (4xx, 5xx)</option>
            <option value="401">401 Unauthorized</option>
            <option value="402">402 Balance</option>
            <option value="404">404 Not found</option>
            <option value="429">429 Rate limited</option>
            <option value="502">502 Upstream</option>
          </SelectField>
          <TextField label="From" type="date" value={dates.from} max={isoDay()} onChange={(e) => pickDate("from", e.target.value)} error={dateError} />
          <TextField label="To" type="date" value={dates.to} max={isoDay()} onChange={(e) => pickDate("to", e.target.value)} />
          <div className="flex items-end">
            <Button variant="ghost" onClick={clear}>
              Clear filters
            </Button>
          </div>
          {filters.requestId && (
            <p className="col-span-2 text-xs text-zinc-500 lg:col-span-4">
              Showing request <code className="font-mono">{filters.requestId}</code> only.
            </p>
          )}
        </form>
      </Card>
      <div className="mb-6 grid grid-cols-2 gap-4 lg:grid-cols-4">
        <Stat label="Requests" value={totals ? num(totals.requests) : "…"} sub={totals ? (totals.errors === 1 ? "1 error" : `${num(totals.errors)} errors`) : undefined} testId="usage-requests" />
        <Stat
          label="Spend"
          value={totals ? <Money micro={totals.costMicroUsd} /> : "…"}
          sub={
            totals?.cacheSavedMicroUsd || totals?.responseCacheSavedMicroUsd || totals?.batchCostMicroUsd ? (
              <>
                {totals.batchCostMicroUsd ? <span data-testid="usage-batch-spend">{usd(totals.batchCostMicroUsd, true)} in batches </span> : null}
                {totals.cacheSavedMicroUsd ? <span data-testid="usage-cache-saved">{usd(totals.cacheSavedMicroUsd, true)} saved by caching</span> : null}
                {totals.cacheSavedMicroUsd && totals.responseCacheSavedMicroUsd ? " · " : null}
                {totals.responseCacheSavedMicroUsd ? <span data-testid="usage-response-cache-saved">{usd(totals.responseCacheSavedMicroUsd, true)} saved by the response cache</span> : null}
              </>
            ) : undefined
          }
          testId="usage-spend"
        />
        <Stat
          label="Input tokens"
          value={totals ? num(totals.inputTokens) : "…"}
          sub={totals && (totals.cacheReadTokens || totals.cacheWriteTokens) ? `${num(totals.cacheReadTokens)} cache reads · ${num(totals.cacheWriteTokens)} cache writes` : undefined}
        />
        <Stat label="Output tokens" value={totals ? num(totals.outputTokens) : "…"} sub={totals?.reasoningTokens ? `${num(totals.reasoningTokens)} reasoning` : undefined} />
      </div>
      <Card className="mb-6">
        <CardHeader title="Daily spend by model" description={filters.from ? undefined : "Last 30 days (UTC)."} />
        <CardBody>
          {daily.isPending ? (
            <Loading />
          ) : daily.isError ? (
            <ErrorState error={daily.error} retry={() => daily.refetch()} />
          ) : daily.data.items.length ? (
            <>
              <SpendChart data={daily.data.items} from={filters.from ?? isoDay(29)} to={filters.to ?? isoDay()} />
              <CacheSavings data={daily.data.items} />
            </>
          ) : (
            <Empty title="No spend in this range" />
          )}
        </CardBody>
      </Card>
      <Card className="mb-6">
        <CardHeader title="Requests" />
        {usage.isPending ? (
          <Loading />
        ) : usage.isError ? (
          <ErrorState error={usage.error} retry={() => usage.refetch()} />
        ) : rows.length === 0 ? (
          <Empty title={Object.keys(filters).length ? "No requests match these filters" : "No requests yet"}>
            {Object.keys(filters).length ? "Try a wider date range or clear the filters." : "Requests made with your API keys appear here within a second."}
          </Empty>
        ) : (
          <>
            <RequestsTable rows={rows} keyNames={keyNames} />
            {usage.hasNextPage && (
              <div className="border-t border-zinc-100 px-4 py-3 text-center">
                <Button variant="secondary" size="sm" loading={usage.isFetchingNextPage} onClick={() => usage.fetchNextPage()}>
                  Load older
                </Button>
              </div>
            )}
          </>
        )}
      </Card>
      <TasksCard />
    </>
  );
}
