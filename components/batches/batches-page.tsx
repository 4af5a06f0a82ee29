"use client";
import Link from "next/link";
import { useState } from "react";
import { formError } from "../console/api";
import { useBatches, useCancelBatch } from "../console/hooks";
import type { BatchRow } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { Dialog } from "../ui/dialog";
import { FormError } from "../ui/field";
import { Ago, Money, Time } from "../ui/money";
import { PageHeader } from "../ui/page-header";
import { Empty, ErrorState, Loading } from "../ui/states";
import { DataTable } from "../ui/data-table";
import { Mono } from "../ui/table";

const STATUS_TONE: Record<string, "green" | "red" | "amber" | "neutral" | "blue"> = { completed: "green", failed: "red", expired: "red", cancelled: "neutral", cancelling: "amber", in_progress: "blue", validating: "blue", finalizing: "blue" };
const OPEN = ["validating", "in_progress"];

function Progress({ b }: { b: BatchRow }) {
  const ended = b.succeeded + b.failed + b.cancelled + b.expired;
  const pct = b.total ? Math.round((ended / b.total) * 100) : 0;
  return (
    <div className="min-w-36" data-testid="batch-progress">
      <div className="h-1.5 overflow-hidden rounded-full bg-zinc-100" role="progressbar" aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100} aria-label="Lines ended">
        <div className="h-full bg-zinc-700" style={{ width: `${pct}%` }} />
      </div>
      <span className="mt-1 block text-xs text-zinc-600">
        {b.succeeded} done · {b.failed} failed{b.cancelled ? ` · ${b.cancelled} cancelled` : ""}
        {b.expired ? ` · ${b.expired} expired` : ""} / {b.total}
        {b.running ? ` · ${b.running} running` : ""}
      </span>
    </div>
  );
}

/** The confirmation shows what comes back: the hold less the shares of lines still running (they finish and are billed). */
function CancelDialog({ batch, onClose }: { batch: BatchRow | null; onClose: () => void }) {
  const cancel = useCancelBatch();
  const [result, setResult] = useState<{ returned: number; status: string } | null>(null);
  const close = () => {
    setResult(null);
    cancel.reset();
    onClose();
  };
  if (!batch) return (
      <Dialog open={false} onClose={close} title="Cancel batch">
        {null}
      </Dialog>
    );
  const back = Math.max(0, batch.heldMicroUsd - batch.inFlightMicroUsd);
  const pending = batch.total - batch.succeeded - batch.failed - batch.cancelled - batch.expired - batch.running;
  return (
    <Dialog open onClose={close} title="Cancel batch" description={<Mono>{batch.id}</Mono>}>
      {result ? (
        <div className="space-y-4">
          <p role="status" className="text-sm" data-testid="cancel-result">
            {result.status === "cancelled" ? (
              <>
                Cancelled. <Money micro={result.returned} /> of held balance is back.
              </>
            ) : (
              <>Cancelling: the lines in flight finish first, then the rest of the hold comes back.</>
            )}
          </p>
          <div className="flex justify-end">
            <Button onClick={close}>Done</Button>
          </div>
        </div>
      ) : (
        <div className="space-y-4">
          <p className="text-sm text-zinc-700">
            {pending} line{pending === 1 ? "" : "s"} not started will not run and cost nothing.
            {batch.running > 0 && ` ${batch.running} line${batch.running === 1 ? " is" : "s are"} running: they finish and are billed.`}
          </p>
          <p className="text-sm text-zinc-700" data-testid="cancel-returns">
            <Money micro={back} /> of the <Money micro={batch.heldMicroUsd} /> held for this batch comes back
            {batch.running > 0 ? ", and whatever the running lines do not use, once they have finished." : " now."}
          </p>
          <FormError message={formError(cancel.error, [])} />
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={close}>
              Keep running
            </Button>
            <Button
              variant="danger"
              loading={cancel.isPending}
              onClick={async () => {
                try {
                  const r = await cancel.mutateAsync(batch.id);
                  setResult({ returned: r.returnedMicroUsd, status: r.batch.status });
                } catch {
                  /* shown above */
                }
              }}
            >
              Cancel batch
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

export function BatchesPage() {
  const q = useBatches();
  const [cancelling, setCancelling] = useState<BatchRow | null>(null);
  const rows = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader
        title="Batches"
        description={
          <>
            Batches created with <code className="font-mono text-xs">/v1/batches</code> or <code className="font-mono text-xs">/v1/messages/batches</code>, charged per line at the batch price. See the{" "}
            <Link href="/docs" className="underline">
              Docs
            </Link>
            .
          </>
        }
      />
      <Card>
        {q.isPending ? (
          <Loading />
        ) : q.isError ? (
          <ErrorState error={q.error} retry={() => q.refetch()} />
        ) : rows.length === 0 ? (
          <Empty title="No batches yet">Upload a JSONL file and create a batch with the OpenAI or Anthropic SDK.</Empty>
        ) : (
          <DataTable
            label="Batches"
            rows={rows}
            rowKey={(b) => b.id}
            rowTestId="batch-row"
            hasMore={q.hasNextPage}
            loadingMore={q.isFetchingNextPage}
            onMore={() => q.fetchNextPage()}
            columns={[
              { header: "Created", cell: (b) => <Ago iso={b.createdAt} /> },
              {
                header: "Batch",
                cell: (b) => (
                  <>
                    <Mono>{b.id}</Mono>
                    <span className="block text-[11px] text-zinc-500">
                      {{ openai: "OpenAI", anthropic: "Anthropic", gemini: "Gemini" }[b.dialect]} · {b.endpoint}
                    </span>
                  </>
                ),
              },
              { header: "Status", cell: (b) => <Badge tone={STATUS_TONE[b.status] ?? "neutral"}>{b.status.replace("_", " ")}</Badge> },
              { header: "Progress", cell: (b) => <Progress b={b} /> },
              {
                header: "Cost so far",
                cell: (b) => (
                  <>
                    <Money micro={b.costMicroUsd} testId="batch-cost" />
                    {b.heldMicroUsd > 0 && (
                      <span className="block text-[11px] text-zinc-500">
                        <Money micro={b.heldMicroUsd} /> held
                      </span>
                    )}
                  </>
                ),
              },
              {
                header: "Ends",
                className: "text-xs",
                cell: (b) =>
                  b.endedAt ? (
                    <>
                      ended <Time iso={b.endedAt} />
                    </>
                  ) : (
                    <>
                      by <Time iso={b.expiresAt} />
                    </>
                  ),
              },
              {
                header: "Actions",
                sticky: true,
                cell: (b) => (
                  <span className="inline-flex gap-1">
                    {b.hasResults && (
                      <a className="rounded px-2 py-1 text-xs font-medium text-zinc-700 hover:bg-zinc-100" href={`/api/console/batches/${encodeURIComponent(b.id)}/download/results`} download>
                        Results
                      </a>
                    )}
                    {b.hasErrors && (
                      <a className="rounded px-2 py-1 text-xs font-medium text-zinc-700 hover:bg-zinc-100" href={`/api/console/batches/${encodeURIComponent(b.id)}/download/errors`} download>
                        Errors
                      </a>
                    )}
                    {OPEN.includes(b.status) && (
                      <Button variant="ghost" size="sm" onClick={() => setCancelling(b)}>
                        Cancel
                      </Button>
                    )}
                  </span>
                ),
              },
            ]}
          />
        )}
      </Card>
      <CancelDialog batch={cancelling} onClose={() => setCancelling(null)} />
    </>
  );
}
