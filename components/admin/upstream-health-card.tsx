"use client";
import { useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { useAdminMutation, useUpstreamHealth } from "../console/hooks";
import type { UpstreamHealthView, UpstreamWebhookSaved, UpstreamWebhookTested } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { CopyButton } from "../ui/copy-button";
import { FormError, TextField } from "../ui/field";
import { Empty, QueryState } from "../ui/states";
import { Mono, Table, Td, Th } from "../ui/table";

type Entry = UpstreamHealthView["entries"][number];

const STATE = {
  closed: { tone: "green", label: "Closed" },
  half_open: { tone: "amber", label: "Half-open" },
  open: { tone: "red", label: "Open" },
} as const;

const time = (ms: number | string | null) => (ms === null ? "—" : new Date(ms).toLocaleString());
const pct = (r: number) => `${Math.round(r * 100)} %`;

function Circuit({ e }: { e: Entry }) {
  const s = STATE[e.state];
  return (
    <span className="inline-flex flex-col gap-0.5">
      <Badge tone={s.tone}>{s.label}</Badge>
      {e.state !== "closed" && e.openUntil !== null && (
        <span className="text-[11px] text-zinc-500">{e.state === "open" ? `probe after ${new Date(e.openUntil).toLocaleTimeString()}` : "next request probes it"}</span>
      )}
    </span>
  );
}

function WebhookForm({ current }: { current: UpstreamHealthView["webhook"] }) {
  const [url, setUrl] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const save = useAdminMutation((body: { url: string | null; newSecret?: boolean }) => api<UpstreamWebhookSaved>("/api/admin/upstream-health/webhook", { method: "PUT", body }));
  const test = useAdminMutation(() => api<UpstreamWebhookTested>("/api/admin/upstream-health/webhook/test", { method: "POST" }));
  const value = url ?? current?.url ?? "";
  async function submit(e: FormEvent, newSecret = false) {
    e.preventDefault();
    try {
      const r = await save.mutateAsync({ url: value.trim() || null, newSecret });
      setSecret(r.ok && "secret" in r && r.secret ? r.secret : null);
      setUrl(null);
    } catch {
      /* shown */
    }
  }
  return (
    <form onSubmit={(e) => submit(e)} noValidate className="space-y-3" aria-label="Upstream health webhook">
      <FormError message={formError(save.error, ["url"])} />
      <TextField
        label="Webhook URL"
        value={value}
        onChange={(e) => setUrl(e.target.value)}
        error={fieldError(save.error, "url")}
        optional
        placeholder="https://ops.example.com/hooks/gateway"
        hint="Receives upstream.opened and upstream.closed, signed (X-Shim-Signature) and retried like task webhooks. Empty = none."
      />
      {secret && (
        <p className="flex flex-wrap items-center gap-2 rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900" data-testid="upstream-webhook-secret">
          Signing secret (shown once): <Mono>{secret}</Mono> <CopyButton value={secret} />
        </p>
      )}
      <div className="flex gap-2">
        <Button type="submit" size="sm" loading={save.isPending}>
          Save
        </Button>
        {current?.url && (
          <Button variant="secondary" size="sm" onClick={(e) => submit(e as unknown as FormEvent, true)}>
            New secret
          </Button>
        )}
        {current?.url && (
          <Button variant="secondary" size="sm" loading={test.isPending} onClick={() => test.mutate()}>
            Send test event
          </Button>
        )}
      </div>
      <TestResult result={test.data} error={formError(test.error, []) ?? null} />
    </form>
  );
}

/** What the receiver answered to "Send test event" (one attempt, signed like a real event). */
function TestResult({ result, error }: { result: UpstreamWebhookTested | undefined; error: string | null }) {
  if (error) return <p role="alert" className="text-xs text-red-700">{error}</p>;
  if (!result) return null;
  return (
    <p role="status" data-testid="upstream-webhook-test" className={result.delivered ? "text-xs text-green-700" : "text-xs text-red-700"}>
      {result.delivered
        ? `Test event ${result.id} delivered: the receiver answered ${result.statusCode} in ${result.latencyMs} ms.`
        : `Test event not delivered: ${result.error ?? `the receiver answered ${result.statusCode}`}.`}
    </p>
  );
}

export function UpstreamHealthCard() {
  const q = useUpstreamHealth();
  return (
    <Card>
      <CardHeader
        title="Health"
        description="Each model × upstream entry has a circuit: it opens when too many attempts fail within the window (the entry is skipped), lets one real request through as a probe after a cool-down, and closes when it succeeds. Refreshed every 5 s."
      />
      <QueryState query={q} empty={(d) => (d.entries.length ? null : <Empty title="No entries yet" />)}>
        {(d) => (
          <>
            <p className="px-6 pb-2 text-xs text-zinc-500">
              Opens at {pct(d.policy.errorRate)} failed of at least {d.policy.minRequests} attempts in {Math.round(d.policy.windowMs / 1000)} s; first cool-down {Math.round(d.policy.cooldownMs / 1000)} s.
            </p>
            <Table label="Upstream health">
              <thead>
                <tr>
                  <Th>Model</Th>
                  <Th>Upstream</Th>
                  <Th className="text-right">Tier · weight</Th>
                  <Th>Circuit</Th>
                  <Th className="text-right">Error rate</Th>
                  <Th>Since · why</Th>
                  <Th>Last errors</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100 bg-white">
                {d.entries.map((e) => (
                  <tr key={e.key} data-testid="health-row">
                    <Td>
                      <Mono className="font-medium text-zinc-900">{e.modelId}</Mono>
                    </Td>
                    <Td>
                      <Mono>{e.upstreamId}</Mono>
                    </Td>
                    <Td className="text-right tabular-nums">
                      {e.priority ?? "—"} · {e.weight ?? "—"}
                    </Td>
                    <Td>
                      <Circuit e={e} />
                    </Td>
                    <Td className="text-right tabular-nums">
                      {pct(e.errorRate)}
                      <span className="block text-[11px] text-zinc-500">
                        {e.failed} of {e.attempts}
                      </span>
                    </Td>
                    <Td className="max-w-72 whitespace-normal! text-xs">
                      {e.state === "closed" ? (e.changedAt && e.reason ? `closed ${time(e.changedAt)} (${e.reason})` : "—") : `opened ${time(e.openedAt)}: ${e.reason ?? ""}`}
                    </Td>
                    <Td className="max-w-80 whitespace-normal! text-xs">
                      {e.lastErrors.length ? (
                        <ul className="space-y-0.5">
                          {e.lastErrors.slice(0, 3).map((x, i) => (
                            <li key={i} title={x.message} className="whitespace-nowrap">
                              <span className="tabular-nums text-zinc-500">{new Date(x.at).toLocaleTimeString()}</span> {x.status} {x.code}
                            </li>
                          ))}
                        </ul>
                      ) : (
                        <span className="text-zinc-500">—</span>
                      )}
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <CardBody className="grid gap-6 lg:grid-cols-2">
              <div>
                <h3 className="mb-2 text-sm font-medium text-zinc-900">History</h3>
                {d.history.length ? (
                  <ol className="space-y-1 text-xs" data-testid="health-history">
                    {d.history.slice(0, 20).map((h) => (
                      <li key={h.id}>
                        <span className="tabular-nums text-zinc-500">{time(h.createdAt)}</span> <Mono>{h.modelId}@{h.upstreamId}</Mono>{" "}
                        <Badge tone={h.state === "open" ? "red" : "green"}>{h.state === "open" ? "opened" : "closed"}</Badge> {h.reason}
                      </li>
                    ))}
                  </ol>
                ) : (
                  <p className="text-xs text-zinc-500">No circuit has opened yet.</p>
                )}
              </div>
              <WebhookForm current={d.webhook} />
            </CardBody>
          </>
        )}
      </QueryState>
    </Card>
  );
}
