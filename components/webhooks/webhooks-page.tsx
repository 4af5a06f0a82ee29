"use client";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../console/api";
import { Ago, Time } from "../ui/money";
import { useResendWebhook, useSendTestWebhook, useWebhooks } from "../console/hooks";
import type { WebhookDelivery } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, TextField } from "../ui/field";
import { PageHeader } from "../ui/page-header";
import { Empty, ErrorState, Loading } from "../ui/states";
import { DataTable } from "../ui/data-table";
import { Mono } from "../ui/table";

const STATE_TONE: Record<string, "green" | "red" | "amber" | "neutral"> = { delivered: "green", failed: "red", stopped: "red", pending: "amber" };

function TestEventCard() {
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [errors, setErrors] = useState<{ url?: string; secret?: string }>({});
  const send = useSendTestWebhook();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const next: typeof errors = {};
    if (!/^https?:\/\/\S+$/.test(url.trim())) next.url = "Enter an http(s) URL.";
    if (secret && (secret.length < 8 || secret.length > 128)) next.secret = "8 to 128 characters, like webhook_secret.";
    setErrors(next);
    if (Object.keys(next).length) return;
    try {
      await send.mutateAsync({ url: url.trim(), secret: secret || undefined });
    } catch {
      /* shown below */
    }
  }

  const o = send.data?.outcome;
  return (
    <Card>
      <CardHeader title="Send a test event" description="A completed Task with an id task_test_…, marked &quot;test&quot;: true, signed like a real delivery. One attempt, no retries." />
      <CardBody>
        <form onSubmit={submit} noValidate className="grid gap-4 lg:grid-cols-[2fr_1fr_auto] lg:items-start">
          <TextField label="Receiver URL" value={url} onChange={(e) => setUrl(e.target.value)} error={errors.url ?? fieldError(send.error, "url")} placeholder="https://example.com/hooks/video" />
          <TextField label="Secret" type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} error={errors.secret ?? fieldError(send.error, "secret")} optional hint="Signs X-Shim-Signature." />
          <Button type="submit" loading={send.isPending} className="lg:mt-6">
            Send test event
          </Button>
        </form>
        <div className="mt-3">
          <FormError message={formError(send.error, ["url", "secret"])} />
          {o && (
            <p role="status" className={`text-sm ${o.result === "delivered" ? "text-emerald-700" : "text-red-600"}`} data-testid="test-event-result">
              {o.result === "delivered" ? `Delivered: the receiver answered ${o.statusCode} in ${o.latencyMs} ms.` : `Not delivered${o.statusCode ? ` (HTTP ${o.statusCode})` : ""}: ${o.error ?? "no 2xx answer"}.`}
            </p>
          )}
        </div>
      </CardBody>
    </Card>
  );
}

function Attempts({ log }: { log: WebhookDelivery["attemptLog"] }) {
  if (log.length === 0) return <p className="text-xs text-zinc-500">No attempts yet.</p>;
  return (
    <ol className="space-y-1 text-xs text-zinc-600">
      {log.map((a) => (
        <li key={a.attemptNo} className="font-mono">
          #{a.attemptNo} · <Time iso={a.at} /> · {a.statusCode ? `HTTP ${a.statusCode}` : "no answer"}
          {a.latencyMs !== null ? ` · ${a.latencyMs} ms` : ""}
          {a.error ? ` · ${a.error}` : ""}
        </li>
      ))}
    </ol>
  );
}

export function WebhooksPage() {
  const q = useWebhooks();
  const resend = useResendWebhook();
  const [open, setOpen] = useState<string | null>(null);
  const rows = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader
        title="Webhooks"
        description={
          <>
            Deliveries of video task results to the <code className="font-mono text-xs">webhook</code> URLs you submit, with every attempt. See the{" "}
            <Link href="/docs" className="underline">
              Docs
            </Link>{" "}
            for verifying signatures.
          </>
        }
      />
      <div className="space-y-6">
        <TestEventCard />
        <Card>
          <CardHeader title="Deliveries" description="Retries follow 10 s, 30 s, 60 s, 5 min, 30 min and 2 h; a 4xx answer stops them." />
          <FormError message={formError(resend.error, [])} />
          {q.isPending ? (
            <Loading />
          ) : q.isError ? (
            <ErrorState error={q.error} retry={() => q.refetch()} />
          ) : rows.length === 0 ? (
            <Empty title="No deliveries yet">Submit a video with a webhook URL, or send a test event above.</Empty>
          ) : (
            <DataTable
              label="Webhook deliveries"
              rows={rows}
              rowKey={(d) => d.id}
              rowTestId="delivery-row"
              hasMore={q.hasNextPage}
              loadingMore={q.isFetchingNextPage}
              onMore={() => q.fetchNextPage()}
              detail={(d) => (open === d.id ? <Attempts log={d.attemptLog} /> : null)}
              columns={[
                { header: "Created", cell: (d) => <Ago iso={d.createdAt} /> },
                {
                  header: "Task",
                  cell: (d) => (
                    <>
                      <Mono>{d.taskId}</Mono>
                      {d.isTest && <span className="ml-1.5 text-xs text-zinc-500">test</span>}
                    </>
                  ),
                },
                { header: "Event", cell: (d) => d.eventStatus },
                { header: "URL", className: "max-w-64 truncate", props: (d) => ({ title: d.url }), cell: (d) => <Mono>{d.url}</Mono> },
                {
                  header: "State",
                  cell: (d) => (
                    <>
                      <Badge tone={STATE_TONE[d.state] ?? "neutral"}>{d.state}</Badge>
                      {d.state === "pending" && d.nextAttemptAt && (
                        <span className="block text-[11px] text-zinc-500">
                          next <Ago iso={d.nextAttemptAt} />
                        </span>
                      )}
                    </>
                  ),
                },
                {
                  header: "Last answer",
                  className: "max-w-56 truncate text-xs",
                  props: (d) => ({ title: d.lastError ?? undefined }),
                  cell: (d) => (
                    <>
                      {d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : d.lastError ?? "—"}
                      <span className="block text-[11px] text-zinc-500">
                        {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
                      </span>
                    </>
                  ),
                },
                {
                  header: "Actions",
                  sticky: true,
                  cell: (d) => (
                    <span className="inline-flex gap-1">
                      <Button variant="ghost" size="sm" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
                        Attempts
                      </Button>
                      {!d.isTest && (
                        <Button variant="ghost" size="sm" loading={resend.isPending && resend.variables === d.id} onClick={() => resend.mutate(d.id)}>
                          Resend
                        </Button>
                      )}
                    </span>
                  ),
                },
              ]}
            />
          )}
        </Card>
      </div>
    </>
  );
}
