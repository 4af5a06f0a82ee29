"use client";
/**
 * The request inspector: a drawer opened from any request row (Usage, Overview, a ledger row,
 * a playground reply) with everything the gateway recorded about one request, or about one video
 * task (shown through the request that submitted it). What it shows is in the address
 * (`?request=<id>` or `?task=<id>` on the current page), so it survives a reload, can be shared,
 * and Back closes it. `useInspector().open(requestId)` from anywhere inside <InspectorProvider>;
 * <InspectorLink> where the id should be a real link.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "@/components/navigation";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, type MouseEvent, type ReactNode } from "react";
import type { RequestDetail } from "@/lib/views";
import { api } from "../console/api";
import { ContentLog } from "./content-log";
import { num, usd } from "../console/format";
import { setAddress, useAddressQuery } from "../console/use-address";
import { Badge, StatusBadge } from "../ui/badge";
import { CopyButton } from "../ui/copy-button";
import { Drawer } from "../ui/drawer";
import { Time } from "../ui/money";
import { ErrorState, Loading } from "../ui/states";
import { PROVIDERS, UPSTREAM_PROTOCOLS } from "../../lib/values";

type Target = { request: string } | { task: string };

const Ctx = createContext<{ open: (target: Target | string) => void; href: (target: Target) => string }>({ open: () => undefined, href: () => "" });

export function useInspector() {
  return useContext(Ctx);
}

/** The current address with the inspector's parameter set to `target`, or removed. */
function addressWith(pathname: string, params: URLSearchParams, target: Target | null): string {
  const p = new URLSearchParams(params);
  p.delete("request");
  p.delete("task");
  if (target) for (const [k, v] of Object.entries(target)) p.set(k, v);
  const q = p.toString();
  return q ? `${pathname}?${q}` : pathname;
}

export function InspectorProvider({ children }: { children: ReactNode }) {
  const params = useAddressQuery();
  const pathname = usePathname();
  const requestId = params.get("request");
  const taskId = requestId ? null : params.get("task");
  // Opened here (a history entry of ours): closing goes Back, so Back afterwards leaves the page as expected.
  const pushed = useRef(false);
  useEffect(() => {
    if (!requestId && !taskId) pushed.current = false;
  }, [requestId, taskId]);
  const href = useCallback((target: Target) => addressWith(pathname, params, target), [pathname, params]);
  const open = useCallback(
    (target: Target | string) => {
      pushed.current = true;
      setAddress(href(typeof target === "string" ? { request: target } : target), "push");
    },
    [href],
  );
  const close = useCallback(() => {
    if (pushed.current) window.history.back();
    else setAddress(addressWith(pathname, params, null), "replace");
  }, [pathname, params]);
  const value = useMemo(() => ({ open, href }), [open, href]);
  return (
    <Ctx.Provider value={value}>
      {children}
      <Drawer open={Boolean(requestId || taskId)} onClose={close} title={taskId ? "Video task" : "Request"}>
        {requestId ? <InspectorBody requestId={requestId} /> : taskId ? <TaskBody taskId={taskId} /> : null}
      </Drawer>
    </Ctx.Provider>
  );
}

/**
 * A request or task id as a link: a plain click opens the inspector in place, and the address
 * works in a new tab or when shared.
 */
export function InspectorLink({ target, children }: { target: Target; children: ReactNode }) {
  const inspector = useInspector();
  const [kind, id] = "request" in target ? ["Request", target.request] : ["Task", target.task];
  function click(e: MouseEvent<HTMLAnchorElement>) {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    inspector.open(target);
  }
  return (
    <a href={inspector.href(target)} onClick={click} aria-label={`${kind} ${id}`} className="text-zinc-800 underline decoration-zinc-300 underline-offset-2 hover:decoration-zinc-800">
      {children}
    </a>
  );
}

/** A task opens as the request that submitted it, which shows the task, scrolled to it. */
function TaskBody({ taskId }: { taskId: string }) {
  const q = useQuery({ queryKey: ["task-request", taskId], queryFn: () => api<{ requestId: string }>(`/api/console/tasks/${encodeURIComponent(taskId)}`) });
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorState error={q.error} retry={() => q.refetch()} />;
  return <InspectorBody requestId={q.data.requestId} focusTask />;
}

/** What each settlement means, in words. */
const SETTLEMENT: Record<string, string> = {
  completed: "Completed: charged for the tokens the upstream reported.",
  completed_estimated: "Completed; the upstream sent no usage, so tokens were counted by the gateway and charged.",
  client_disconnect: "The client went away mid-request: charged for the input only, never more than the hold.",
  upstream_error: "The upstream failed: nothing charged, the hold went back to the balance.",
  rejected: "Refused before any upstream call (balance, key limit or rate limit): nothing charged.",
  invalid: "Refused as invalid before any upstream call: nothing charged.",
  invalid_request: "Refused as invalid before any upstream call: nothing charged.",
  replayed: "Replayed from an earlier request with the same Idempotency-Key: not charged again.",
  task_submitted: "Video task accepted: the price was charged at submission; a shorter run releases the difference.",
  refunded: "The video task failed: its charge was refunded in full.",
};

const LEDGER_KIND: Record<string, string> = {
  charge: "Charge",
  refund: "Refund",
  release: "Release",
  hold: "Hold",
  topup: "Top-up",
  admin_credit: "Admin credit",
  admin_debit: "Admin debit",
  stripe_refund: "Card refund",
  stripe_dispute: "Card dispute",
  redeem: "Redeemed code",
};

/** The client's wire protocols by their log names, then every upstream protocol's label (lib/values.ts PROVIDERS). */
const PROTOCOL: Record<string, string> = {
  "chat-completions": "OpenAI Chat Completions",
  "openai-chat": "OpenAI Chat Completions",
  "generate-content": "Gemini generateContent",
  responses: "OpenAI Responses",
  messages: "Anthropic Messages",
  ...Object.fromEntries(UPSTREAM_PROTOCOLS.map((p) => [p, PROVIDERS[p].label])),
};

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[9rem_1fr] gap-3 py-1.5 text-sm">
      <dt className="text-zinc-600">{label}</dt>
      <dd className="min-w-0 break-words text-zinc-900">{children}</dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="border-b border-zinc-100 px-5 py-4">
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-600">{title}</h3>
      {children}
    </section>
  );
}

/** Token classes present on the row: every `…Tokens` number, named by its class. */
function tokenClasses(r: Record<string, unknown>): [string, number][] {
  return Object.entries(r)
    .filter(([k, v]) => k.endsWith("Tokens") && typeof v === "number")
    .map(([k, v]) => [k.slice(0, -"Tokens".length), v as number]);
}

const words = (cls: string) => cls.replace(/([A-Z])/g, " $1").toLowerCase();

/** The cost arithmetic: token classes × the price snapshot (computed by the server's billing rule), or the media price. */
function CostLines({ d }: { d: RequestDetail }) {
  const r = d.request;
  const price = (r.priceSnapshot ?? {}) as Record<string, unknown>;
  const charged = (
    <p className="mt-2 flex justify-between border-t border-zinc-100 pt-2 font-medium">
      <span>Charged</span>
      <span className="tabular-nums" data-testid="inspector-cost">
        {usd(r.costMicroUsd, true)}
        {r.settlement === "refunded" ? " · refunded" : ""}
      </span>
    </p>
  );
  if (d.textCost) {
    const t = d.textCost;
    return (
      <div className="text-sm">
        <ul className="space-y-1 font-mono text-xs">
          {t.lines.map((l) => (
            <li key={l.label} className="flex justify-between gap-3">
              <span className="text-zinc-700">
                {num(l.tokens)} {l.label} × {usd(l.perMTokMicroUsd, true)} / 1M
              </span>
              <span className="tabular-nums">{usd(Math.round(l.microUsd), true)}</span>
            </li>
          ))}
        </ul>
        <p className="mt-2 text-xs text-zinc-600">
          Sum {(t.sumMicroUsd / 1_000_000).toFixed(9).replace(/0+$/, "")} USD, rounded up once to {usd(t.roundedMicroUsd, true)}
          {t.roundedMicroUsd !== r.costMicroUsd ? "; the charge never exceeds the request's hold (or is what a partial or failed request owes)" : ""}.
        </p>
        {charged}
      </div>
    );
  }
  const lines: string[] = [];
  if (typeof price.perVideo === "number") lines.push(`${usd(price.perVideo, true)} per video`);
  if (typeof price.perSecond === "number") lines.push(`${usd(price.perSecond, true)} per second of video`);
  else if (price.perSecond && typeof price.perSecond === "object") {
    for (const [k, v] of Object.entries(price.perSecond as Record<string, number>)) lines.push(`${usd(v, true)} per second of video at ${k.replace(":audio", " with sound")}`);
  }
  if (price.perImage && typeof price.perImage === "object") {
    for (const [k, v] of Object.entries(price.perImage as Record<string, number>)) lines.push(`${usd(v, true)} per image (${k === "*" ? "any size" : k})`);
  }
  return (
    <div className="text-sm">
      {lines.length ? (
        <ul className="space-y-1 font-mono text-xs">
          {lines.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      ) : (
        <p className="text-zinc-600">No price recorded for this request.</p>
      )}
      {charged}
    </div>
  );
}

function InspectorBody({ requestId, focusTask }: { requestId: string; focusTask?: boolean }) {
  const q = useQuery({ queryKey: ["request", requestId], queryFn: () => api<RequestDetail>(`/api/console/requests/${encodeURIComponent(requestId)}`) });
  const taskRef = useRef<HTMLDivElement>(null);
  const loaded = q.isSuccess;
  useEffect(() => {
    if (focusTask && loaded) taskRef.current?.scrollIntoView({ block: "start" });
  }, [focusTask, loaded]);
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorState error={q.error} retry={() => q.refetch()} />;
  const { request: r, key, ledger, task, deliveries } = q.data;
  const tokens = tokenClasses(r as Record<string, unknown>);
  return (
    <div data-testid="request-inspector">
      <Section title="Request">
        <dl>
          <Row label="Request id">
            <span className="flex flex-wrap items-center gap-2">
              <code className="font-mono text-xs">{r.requestId}</code>
              <CopyButton value={r.requestId} label="Copy id" />
            </span>
          </Row>
          <Row label="Time">
            <Time iso={r.createdAt} />
          </Row>
          <Row label="Route">
            <code className="font-mono text-xs">
              {r.method} {r.route}
            </code>
          </Row>
          <Row label="Model">{r.model ?? "—"}</Row>
          <Row label="Status">
            <StatusBadge status={r.status} /> {r.errorCode && <span className="text-xs text-zinc-600">{r.errorCode}</span>}
          </Row>
          <Row label="Source">{r.source === "playground" ? "Playground" : "API key"}</Row>
          <Row label="Key">
            {key ? (
              <Link className="underline" href={`/usage?keyId=${encodeURIComponent(key.id)}`}>
                {key.name || "Untitled"} ({key.prefix}…{key.last4})
              </Link>
            ) : (
              "—"
            )}
          </Row>
        </dl>
      </Section>
      <Section title="Routing">
        <dl>
          <Row label="Served by">{r.upstreamId ?? "no upstream was called"}</Row>
          <Row label="Protocol">
            {PROTOCOL[r.inboundProtocol ?? ""] ?? r.inboundProtocol ?? "—"} → {PROTOCOL[r.upstreamProtocol ?? ""] ?? r.upstreamProtocol ?? "—"}
          </Row>
          <Row label="Stream">{r.stream ? "yes" : "no"}</Row>
          <Row label="Time to first token">{r.ttftMs === null ? "—" : `${num(r.ttftMs)} ms`}</Row>
          <Row label="Latency">{num(r.latencyMs)} ms</Row>
        </dl>
      </Section>
      <Section title="Tokens">
        {tokens.length ? (
          <dl>
            {tokens.map(([cls, n]) => (
              <Row key={cls} label={words(cls)}>
                <span className="tabular-nums">{num(n)}</span>
              </Row>
            ))}
          </dl>
        ) : (
          <p className="text-sm text-zinc-600">No tokens.</p>
        )}
      </Section>
      {r.route !== "/v1/videos" && (
        <Section title="Content">
          <ContentLog requestId={requestId} />
        </Section>
      )}
      <Section title="Cost">
        <CostLines d={q.data} />
        <p className="mt-3 text-sm text-zinc-700" data-testid="inspector-settlement">
          {SETTLEMENT[r.settlement ?? ""] ?? (r.settlement ? `Settlement: ${r.settlement}.` : "No settlement recorded.")}
        </p>
      </Section>
      <Section title="Ledger">
        {ledger.length ? (
          <ul className="divide-y divide-zinc-100 text-sm">
            {ledger.map((l) => (
              <li key={l.id} className="flex flex-wrap justify-between gap-2 py-1.5">
                <span>
                  {LEDGER_KIND[l.kind] ?? l.kind} <span className="text-xs text-zinc-600">#{l.id}</span>
                </span>
                <span className="tabular-nums">{usd(l.deltaMicroUsd, true)}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-zinc-600">No balance change is linked to this request{r.costMicroUsd > 0 ? " yet" : ""}.</p>
        )}
      </Section>
      {task && (
        <div ref={taskRef} data-testid="inspector-task">
          <Section title="Video task">
            <dl>
              <Row label="Task">
                <code className="font-mono text-xs">{task.id}</code>
              </Row>
              <Row label="Status">
                <Badge tone={task.status === "completed" ? "green" : task.status === "failed" ? "red" : "blue"}>{task.status.replace("_", " ")}</Badge> {task.progress}%
              </Row>
              {task.errorMessage && <Row label="Error">{task.errorMessage}</Row>}
              <Row label="Held · cost">
                {usd(task.holdMicroUsd, true)} · {usd(task.costMicroUsd, true)}
              </Row>
            </dl>
            <h4 className="mt-3 text-xs font-semibold text-zinc-700">Webhook deliveries</h4>
            {deliveries.length ? (
              <ul className="mt-1 divide-y divide-zinc-100 text-sm">
                {deliveries.map((d) => (
                  <li key={d.id} className="flex flex-wrap justify-between gap-2 py-1.5">
                    <span className="min-w-0 truncate">
                      {d.eventStatus} → {d.url}
                    </span>
                    <span>
                      {d.state} · {d.attempts} {d.attempts === 1 ? "attempt" : "attempts"}
                    </span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-zinc-600">None: the task was submitted without a webhook.</p>
            )}
          </Section>
        </div>
      )}
    </div>
  );
}
