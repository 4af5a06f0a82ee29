"use client";
/** Organisation → Budgets: where each budget stands this window, and (for owners, admins and billing) the form to set one. */
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../console/api";
import { usdProse, when } from "../console/format";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, SelectField, TextField } from "../ui/field";
import { Empty, ErrorState, Loading } from "../ui/states";
import { Table, Td, Th } from "../ui/table";
import { useBudgets, useDeleteBudget, useOrgSettings, useSetBudget, type BudgetInput, type BudgetView } from "./hooks";

const PERIOD_LABEL = { day: "Daily", week: "Weekly", month: "Monthly" } as const;
const EMPTY: BudgetInput = { scope: "organisation", period: "month", limitUsd: "", softLimitUsd: "" };

function covers(b: BudgetView): string {
  if (b.scope === "organisation") return "Whole organisation";
  return b.scope === "key" ? `Key ${b.target ?? b.keyId}` : (b.target ?? b.userId ?? "");
}

/** Spent (and in flight) against the hard limit, or the soft one when there is no hard limit. */
function Progress({ b }: { b: BudgetView }) {
  const of = b.limitMicroUsd ?? b.softLimitMicroUsd ?? 0;
  const pct = of > 0 ? Math.min(100, Math.round((b.spentMicroUsd / of) * 100)) : 0;
  const tone = b.limitMicroUsd !== null && b.spentMicroUsd + b.heldMicroUsd >= b.limitMicroUsd ? "bg-red-600" : pct >= 80 ? "bg-amber-500" : "bg-zinc-900";
  return (
    <div className="min-w-36">
      <div className="flex justify-between text-xs tabular-nums">
        <span>
          {usdProse(b.spentMicroUsd)} of {usdProse(of)}
        </span>
        <span>{pct} %</span>
      </div>
      <div className="mt-1 h-1.5 overflow-hidden rounded-full bg-zinc-100" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} aria-label={`${covers(b)}, ${PERIOD_LABEL[b.period].toLowerCase()}: ${pct} % used`}>
        <div className={`h-full rounded-full ${tone}`} style={{ width: `${pct}%` }} />
      </div>
      {b.heldMicroUsd > 0 && <span className="text-xs text-zinc-500">{usdProse(b.heldMicroUsd)} in flight</span>}
    </div>
  );
}

function BudgetForm({ draft, setDraft, targets }: { draft: BudgetInput; setDraft: (d: BudgetInput) => void; targets: NonNullable<ReturnType<typeof useBudgets>["data"]>["targets"] }) {
  const save = useSetBudget();
  const [saved, setSaved] = useState<string | null>(null);
  const target = draft.scope === "organisation" ? "organisation" : draft.scope === "member" ? `member:${draft.userId ?? ""}` : `key:${draft.keyId ?? ""}`;
  function pick(v: string) {
    const [scope, id] = v.split(":") as [BudgetInput["scope"] | "organisation", string | undefined];
    setDraft({ ...draft, scope, userId: scope === "member" ? id : undefined, keyId: scope === "key" ? id : undefined });
  }
  async function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(null);
    try {
      const r = await save.mutateAsync(draft);
      setSaved(`Saved: ${covers(r.budget)}, ${PERIOD_LABEL[r.budget.period].toLowerCase()}.`);
      setDraft(EMPTY);
    } catch {
      /* shown below */
    }
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Set a budget" className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <SelectField label="Covers" value={target} onChange={(e) => pick(e.target.value)} error={fieldError(save.error, "userId") ?? fieldError(save.error, "keyId")}>
          <option value="organisation">Whole organisation</option>
          {targets?.members.map((m) => (
            <option key={m.id} value={`member:${m.id}`}>
              Member: {m.email}
            </option>
          ))}
          {targets?.keys.map((k) => (
            <option key={k.id} value={`key:${k.id}`}>
              Key: {k.name || `${k.prefix}…${k.last4}`}
            </option>
          ))}
        </SelectField>
        <SelectField label="Starts again" value={draft.period} onChange={(e) => setDraft({ ...draft, period: e.target.value as BudgetInput["period"] })}>
          <option value="day">Every day</option>
          <option value="week">Every week (Monday)</option>
          <option value="month">Every month</option>
        </SelectField>
        <TextField label="Limit (USD)" hint="Requests that would pass it get HTTP 402." inputMode="decimal" placeholder="None" value={draft.limitUsd} onChange={(e) => setDraft({ ...draft, limitUsd: e.target.value })} error={fieldError(save.error, "limitUsd")} />
        <TextField label="Soft limit (USD)" hint="Only alerts." inputMode="decimal" placeholder="None" value={draft.softLimitUsd} onChange={(e) => setDraft({ ...draft, softLimitUsd: e.target.value })} error={fieldError(save.error, "softLimitUsd")} />
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" loading={save.isPending}>
          Save budget
        </Button>
        {saved && (
          <span role="status" className="text-sm text-emerald-700" data-testid="budget-saved">
            {saved}
          </span>
        )}
      </div>
      <FormError message={formError(save.error, ["limitUsd", "softLimitUsd", "userId", "keyId"])} />
    </form>
  );
}

export function BudgetsCard() {
  const q = useBudgets();
  const timeZone = useOrgSettings().data?.timeZone ?? "the organisation's time zone";
  const remove = useDeleteBudget();
  const [draft, setDraft] = useState<BudgetInput>(EMPTY);
  return (
    <Card>
      <CardHeader
        title="Budgets"
        description={`Spend limits for the organisation, a member or a key that start again every day, week or month (${timeZone}). A request that would pass a limit gets HTTP 402; owners and billing members get an alert at the soft limit, 80 % and 100 %.`}
      />
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorState error={q.error} retry={() => q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <CardBody>
          <Empty title="No budgets">{q.data.canManage ? "Set one below: spending is limited only by the balance and members' monthly caps." : "Spending is limited only by the balance and your monthly cap."}</Empty>
        </CardBody>
      ) : (
        <Table label="Budgets">
          <thead>
            <tr>
              <Th>Covers</Th>
              <Th>Period</Th>
              <Th>This window</Th>
              <Th className="text-right">Limits</Th>
              {q.data.canManage && (
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              )}
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((b) => (
              <tr key={b.id} data-testid="budget-row">
                <Td label="Covers">
                  <span className="font-medium text-zinc-900">{covers(b)}</span>
                  {b.limitMicroUsd !== null && (
                    <span className="mt-1 block">
                      {b.spentMicroUsd + b.heldMicroUsd >= b.limitMicroUsd ? (
                        <Badge tone="red">Reached</Badge>
                      ) : (
                        // A request's hold is its worst case: past 75 % some are refused already.
                        (b.spentMicroUsd + b.heldMicroUsd) * 4 >= b.limitMicroUsd * 3 && <Badge tone="amber">Nearly reached</Badge>
                      )}
                    </span>
                  )}
                </Td>
                <Td label="Period">
                  {PERIOD_LABEL[b.period]}
                  <span className="block text-xs text-zinc-500">again {when(b.resetsAt)}</span>
                </Td>
                <Td label="This window">
                  <Progress b={b} />
                </Td>
                <Td label="Limits" className="text-right tabular-nums">
                  {b.limitMicroUsd === null ? "No limit" : usdProse(b.limitMicroUsd)}
                  {b.softLimitMicroUsd !== null && <span className="block text-xs text-zinc-500">soft {usdProse(b.softLimitMicroUsd)}</span>}
                </Td>
                {q.data.canManage && (
                  <Td>
                    <span className="inline-flex gap-1">
                      <Button
                        size="sm"
                        variant="ghost"
                        onClick={() =>
                          setDraft({
                            scope: b.scope,
                            userId: b.userId ?? undefined,
                            keyId: b.keyId ?? undefined,
                            period: b.period,
                            limitUsd: b.limitMicroUsd === null ? "" : String(b.limitMicroUsd / 1_000_000),
                            softLimitUsd: b.softLimitMicroUsd === null ? "" : String(b.softLimitMicroUsd / 1_000_000),
                          })
                        }
                      >
                        Edit
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        className="text-red-600 hover:bg-red-50"
                        onClick={() => {
                          if (window.confirm(`Remove the ${PERIOD_LABEL[b.period].toLowerCase()} budget of ${covers(b)}?`)) remove.mutate(b.id);
                        }}
                      >
                        Remove
                      </Button>
                    </span>
                  </Td>
                )}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {q.data?.canManage && (
        <CardBody>
          <BudgetForm draft={draft} setDraft={setDraft} targets={q.data.targets} />
          <FormError message={formError(remove.error, [])} />
        </CardBody>
      )}
    </Card>
  );
}
