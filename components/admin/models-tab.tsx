"use client";
import { useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { useAdminModels, useAdminMutation, useAdminUpstreams } from "../console/hooks";
import type { AdminModel, DeprecatedCaller } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { DataTable } from "../ui/data-table";
import { FormDialog } from "../ui/form-dialog";
import { FormError, SelectField, TextField } from "../ui/field";
import { Empty, QueryState } from "../ui/states";
import { Mono } from "../ui/table";
import { PER_IMAGE_KEY, PER_IMAGE_KEY_HINT, PER_SECOND_KEY, PER_SECOND_KEY_HINT } from "../../lib/validate/prices";
import { microInput, priceText } from "./price-text";

/** What a prompt may hold, as `/v1/models` lists it (db/schema.ts INPUT_MODALITIES). */
const MODALITIES = ["text", "image", "pdf", "audio", "video"];
const modalities = (s: string) => s.split(",").map((x) => x.trim().toLowerCase()).filter(Boolean);

type Kind = "text" | "embedding" | "image" | "video" | "speech" | "transcription";
interface Form {
  modelId: string;
  upstreamId: string;
  upstreamModel: string;
  kind: Kind;
  family: string;
  ownedBy: string;
  inputPerMTok: string;
  outputPerMTok: string;
  /** Text models: token classes priced apart; empty = the input (or output) price. */
  cacheReadPerMTok: string;
  cacheWrite5mPerMTok: string;
  cacheWrite1hPerMTok: string;
  reasoningPerMTok: string;
  images: { key: string; usd: string }[];
  /** perSecondByResolution: `perSecond` keyed by resolution (videoRows), decision 0065. */
  videoMode: "perVideo" | "perSecond" | "perSecondByResolution";
  videoUsd: string;
  videoRows: { key: string; usd: string }[];
  defaultMaxTokens: string;
  contextWindow: string;
  inputModalities: string;
  /** Text models: refuse hints (400) instead of dropping them (docs/conversion-policy.md). */
  strict: boolean;
  priority: string;
  weight: string;
  /** Lifecycle (decision 0051): ISO 8601 dates, empty = none. Shared by the id's routes. */
  deprecatedAt: string;
  shutdownAt: string;
  successor: string;
  serveSuccessorAfterShutdown: boolean;
  /** Speech and transcription models: priced in the config file (docs/audio.md); an edit keeps the price. */
  audioPrice?: Record<string, number>;
}

const EMPTY: Form = {
  modelId: "",
  upstreamId: "",
  upstreamModel: "",
  kind: "text",
  family: "",
  ownedBy: "",
  inputPerMTok: "",
  outputPerMTok: "",
  cacheReadPerMTok: "",
  cacheWrite5mPerMTok: "",
  cacheWrite1hPerMTok: "",
  reasoningPerMTok: "",
  images: [{ key: "*", usd: "" }],
  videoMode: "perVideo",
  videoUsd: "",
  videoRows: [{ key: "720p", usd: "" }],
  defaultMaxTokens: "",
  contextWindow: "",
  inputModalities: "",
  strict: false,
  priority: "",
  weight: "1",
  deprecatedAt: "",
  shutdownAt: "",
  successor: "",
  serveSuccessorAfterShutdown: false,
};

const money = (s: string) => /^\d+(\.\d{1,6})?$/.test(s.trim());

function fromModel(m: AdminModel): Form {
  const p = m.price;
  return {
    modelId: m.modelId,
    upstreamId: m.upstreamId,
    upstreamModel: m.upstreamModel,
    kind: m.kind,
    family: m.family ?? "",
    ownedBy: m.ownedBy,
    inputPerMTok: microInput(p.inputPerMTok),
    outputPerMTok: microInput(p.outputPerMTok),
    cacheReadPerMTok: microInput(p.cacheReadPerMTok),
    cacheWrite5mPerMTok: microInput(p.cacheWrite5mPerMTok),
    cacheWrite1hPerMTok: microInput(p.cacheWrite1hPerMTok),
    reasoningPerMTok: microInput(p.reasoningPerMTok),
    images: p.perImage ? Object.entries(p.perImage).map(([key, v]) => ({ key, usd: microInput(v) })) : [{ key: "*", usd: "" }],
    videoMode: typeof p.perSecond === "object" ? "perSecondByResolution" : p.perSecond !== undefined ? "perSecond" : "perVideo",
    videoUsd: microInput(typeof p.perSecond === "number" ? p.perSecond : p.perVideo),
    videoRows: typeof p.perSecond === "object" ? Object.entries(p.perSecond).map(([key, v]) => ({ key, usd: microInput(v) })) : [{ key: "720p", usd: "" }],
    defaultMaxTokens: m.defaultMaxTokens ? String(m.defaultMaxTokens) : "",
    contextWindow: m.contextWindow ? String(m.contextWindow) : "",
    inputModalities: (m.inputModalities ?? []).join(", "),
    priority: String(m.priority),
    weight: String(m.weight),
    strict: m.strict ?? false,
    deprecatedAt: m.deprecatedAt ?? "",
    shutdownAt: m.shutdownAt ?? "",
    successor: m.successor ?? "",
    serveSuccessorAfterShutdown: m.serveSuccessorAfterShutdown,
    audioPrice: m.kind === "speech" || m.kind === "transcription" ? usdPrice(p) : undefined,
  };
}

const day = (iso: string) => iso.slice(0, 10);

/** Deprecated / Shut down, with its dates, for the table (null while the model is current). */
function LifecycleBadge({ m }: { m: AdminModel }) {
  const now = Date.now();
  if (m.shutdownAt && Date.parse(m.shutdownAt) <= now)
    return <Badge tone="red">Shut down {day(m.shutdownAt)}{m.serveSuccessorAfterShutdown && m.successor ? ` → ${m.successor}` : ""}</Badge>;
  if (m.deprecatedAt && Date.parse(m.deprecatedAt) <= now)
    return <Badge tone="amber">Deprecated {day(m.deprecatedAt)}{m.shutdownAt ? `, shuts down ${day(m.shutdownAt)}` : ""}</Badge>;
  if (m.deprecatedAt) return <Badge tone="blue">Deprecated from {day(m.deprecatedAt)}</Badge>;
  return null;
}

const CLASS_FIELDS = [
  ["cacheReadPerMTok", "cache read"],
  ["cacheWrite5mPerMTok", "5-minute cache write"],
  ["cacheWrite1hPerMTok", "1-hour cache write"],
  ["reasoningPerMTok", "reasoning"],
] as const;

/** Validates and builds the price (USD numbers) for the model's kind. */
export function buildPrice(f: Form): { price?: Record<string, unknown>; error?: string } {
  if (f.kind === "speech" || f.kind === "transcription") return f.audioPrice ? { price: f.audioPrice } : { error: "Audio models are priced in the config file (docs/audio.md)." };
  if (f.kind === "text") {
    if (!money(f.inputPerMTok) || !money(f.outputPerMTok)) return { error: "Enter input and output prices per million tokens in USD." };
    const price: Record<string, number> = { inputPerMTok: Number(f.inputPerMTok), outputPerMTok: Number(f.outputPerMTok) };
    for (const [k, name] of CLASS_FIELDS) {
      if (!f[k].trim()) continue;
      if (!money(f[k])) return { error: `Enter the ${name} price per million tokens in USD, or leave it empty.` };
      price[k] = Number(f[k]);
    }
    return { price };
  }
  if (f.kind === "embedding") {
    if (!money(f.inputPerMTok)) return { error: "Enter the input price per million tokens in USD." };
    return { price: { inputPerMTok: Number(f.inputPerMTok) } };
  }
  if (f.kind === "image") {
    const rows = f.images.filter((r) => r.key.trim() || r.usd.trim());
    if (!rows.length) return { error: "Add at least one per-image price." };
    for (const r of rows) {
      if (!PER_IMAGE_KEY.test(r.key.trim())) return { error: `“${r.key}”: ${PER_IMAGE_KEY_HINT}` };
      if (!money(r.usd)) return { error: `Enter a USD price for ${r.key}.` };
    }
    return { price: { perImage: Object.fromEntries(rows.map((r) => [r.key.trim(), Number(r.usd)])) } };
  }
  if (f.videoMode === "perSecondByResolution") {
    const rows = f.videoRows.filter((r) => r.key.trim() || r.usd.trim());
    if (!rows.length) return { error: "Add at least one resolution's price per second." };
    for (const r of rows) {
      if (!PER_SECOND_KEY.test(r.key.trim())) return { error: `“${r.key}”: ${PER_SECOND_KEY_HINT}` };
      if (!money(r.usd)) return { error: `Enter a USD price per second for ${r.key}.` };
    }
    return { price: { perSecond: Object.fromEntries(rows.map((r) => [r.key.trim(), Number(r.usd)])) } };
  }
  if (!money(f.videoUsd)) return { error: "Enter the video price in USD." };
  return { price: { [f.videoMode]: Number(f.videoUsd) } };
}

/** A price in micro-USD as the USD numbers the admin API takes. */
function usdPrice(p: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(Object.entries(p).flatMap(([k, v]) => (typeof v === "number" ? [[k, v / 1_000_000]] : [])));
}

/** A fieldset's own error (one not tied to a single input). */
function GroupError({ message }: { message?: string }) {
  return message ? (
    <p role="alert" className="mt-2 text-xs text-red-600">
      {message}
    </p>
  ) : null;
}

function ModelDialog({ open, editing, onClose }: { open: boolean; editing: AdminModel | null; onClose: () => void }) {
  const upstreams = useAdminUpstreams();
  const [form, setForm] = useState<Form>(EMPTY);
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  if (open && editing && loadedFor !== editing.id) {
    setLoadedFor(editing.id);
    setForm(fromModel(editing));
  }
  const save = useAdminMutation((body: Record<string, unknown>) =>
    editing ? api(`/api/admin/models/${encodeURIComponent(editing.id)}`, { method: "PATCH", body }) : api("/api/admin/models", { method: "POST", body }),
  );
  const set = (k: keyof Form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  function close() {
    setForm(EMPTY);
    setErrors({});
    setLoadedFor(null);
    save.reset();
    onClose();
  }
  async function submit(e: FormEvent) {
    e.preventDefault();
    const next: Record<string, string> = {};
    if (!editing && !/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/.test(form.modelId)) next.modelId = "Letters, digits and . _ : / - only.";
    if (!editing && !form.upstreamId) next.upstreamId = "Pick an upstream.";
    if (!form.ownedBy.trim()) next.ownedBy = "Who owns the model (e.g. openai)?";
    if (form.defaultMaxTokens && !/^\d+$/.test(form.defaultMaxTokens)) next.defaultMaxTokens = "A whole number of tokens.";
    if (form.contextWindow && !/^\d+$/.test(form.contextWindow)) next.contextWindow = "A whole number of tokens.";
    const unknown = modalities(form.inputModalities).filter((x) => !MODALITIES.includes(x));
    if (unknown.length) next.inputModalities = `Unknown: ${unknown.join(", ")}. Use ${MODALITIES.join(", ")}.`;
    if (form.priority !== "" && !/^\d+$/.test(form.priority)) next.priority = "A whole number (0 first).";
    if (!/^\d+$/.test(form.weight) || Number(form.weight) > 1000) next.weight = "A whole number from 0 to 1000.";
    const price = buildPrice(form);
    if (price.error) next.price = price.error;
    setErrors(next);
    if (Object.keys(next).length) return;
    const body: Record<string, unknown> = {
      upstreamModel: form.upstreamModel.trim(),
      ownedBy: form.ownedBy.trim(),
      price: price.price,
      defaultMaxTokens: form.defaultMaxTokens ? Number(form.defaultMaxTokens) : null,
      contextWindow: form.contextWindow ? Number(form.contextWindow) : null,
      inputModalities: form.inputModalities.trim() ? modalities(form.inputModalities) : null,
      ...(form.kind === "text" ? { strict: form.strict } : {}),
      ...(form.priority !== "" ? { priority: Number(form.priority) } : {}),
      weight: Number(form.weight),
      family: form.kind === "video" && form.family ? form.family : null,
    };
    // Lifecycle: an edit sends every field (empty clears it for all routes of the id); a new
    // route sends only what was filled in, so adding a fallback keeps the id's dates.
    const lifecycle = {
      deprecatedAt: form.deprecatedAt.trim() || null,
      shutdownAt: form.shutdownAt.trim() || null,
      successor: form.successor.trim() || null,
      serveSuccessorAfterShutdown: form.serveSuccessorAfterShutdown,
    };
    for (const [k, v] of Object.entries(lifecycle)) if (editing || v) body[k] = v;
    if (!editing) Object.assign(body, { modelId: form.modelId.trim(), upstreamId: form.upstreamId, kind: form.kind });
    try {
      await save.mutateAsync(body);
      close();
    } catch {
      /* shown */
    }
  }
  const err = (f: string) => errors[f] ?? fieldError(save.error, f);
  return (
    <FormDialog
      open={open}
      onClose={close}
      wide
      title={editing ? `Edit ${editing.modelId} via ${editing.upstreamId}` : "Add a model"}
      description="Prices are in USD. Routes that share a model id share its price; routes are tried by priority tier (lowest first), shared by weight within a tier, and skipped while their circuit is open."
      onSubmit={submit}
      error={formError(save.error, ["modelId", "upstreamId", "kind", "ownedBy", "price", "defaultMaxTokens", "contextWindow", "inputModalities", "priority", "weight", "deprecatedAt", "shutdownAt", "successor", "serveSuccessorAfterShutdown"])}
      submitLabel={editing ? "Save" : "Add model"}
      submitting={save.isPending}
    >
        <div className="grid gap-4 sm:grid-cols-3">
          <TextField label="Public model id" value={form.modelId} onChange={set("modelId")} disabled={Boolean(editing)} error={err("modelId")} placeholder="e.g. gpt-4o-mini" />
          <SelectField label="Kind" value={form.kind} onChange={set("kind")} disabled={Boolean(editing)} error={err("kind")}>
            <option value="text">Text</option>
            <option value="embedding">Embedding</option>
            <option value="image">Image</option>
            <option value="video">Video</option>
          </SelectField>
          <SelectField label="Upstream" value={form.upstreamId} onChange={set("upstreamId")} disabled={Boolean(editing)} error={err("upstreamId")}>
            <option value="">Pick…</option>
            {upstreams.data?.items.map((u) => (
              <option key={u.id} value={u.id}>
                {u.id} ({u.protocol})
              </option>
            ))}
          </SelectField>
          <TextField label="Upstream model" value={form.upstreamModel} onChange={set("upstreamModel")} optional placeholder="Same as the id" />
          <TextField label="Owned by" value={form.ownedBy} onChange={set("ownedBy")} error={err("ownedBy")} />
          <TextField label="Priority" inputMode="numeric" value={form.priority} onChange={set("priority")} error={err("priority")} optional={!editing} placeholder={editing ? undefined : "After this id's other routes"} hint="Tier: lower is tried first; equal priorities share requests by weight." />
          <TextField label="Weight" inputMode="numeric" value={form.weight} onChange={set("weight")} error={err("weight")} hint="Share of its tier's requests (0 = standby)." />
        </div>
        <fieldset className="rounded-md border border-zinc-200 p-4">
          <legend className="px-1 text-sm font-medium text-zinc-800">Price (USD)</legend>
          {(form.kind === "text" || form.kind === "embedding") && (
            <div className="grid gap-4 sm:grid-cols-3">
              <TextField label="Input per 1M tokens" inputMode="decimal" value={form.inputPerMTok} onChange={set("inputPerMTok")} />
              {form.kind === "text" && <TextField label="Output per 1M tokens" inputMode="decimal" value={form.outputPerMTok} onChange={set("outputPerMTok")} />}
              {form.kind === "text" && <TextField label="Max output tokens" inputMode="numeric" value={form.defaultMaxTokens} onChange={set("defaultMaxTokens")} error={err("defaultMaxTokens")} optional />}
              {form.kind === "text" && <TextField label="Context window (tokens)" inputMode="numeric" value={form.contextWindow} onChange={set("contextWindow")} error={err("contextWindow")} optional />}
              {form.kind === "text" && <TextField label="Input modalities" value={form.inputModalities} onChange={set("inputModalities")} error={err("inputModalities")} placeholder="text, image, pdf" optional />}
              {form.kind === "text" && (
                <label className="flex items-start gap-2 text-sm text-zinc-700 sm:col-span-3">
                  <input type="checkbox" className="mt-0.5" checked={form.strict} onChange={(e) => setForm((f) => ({ ...f, strict: e.target.checked }))} />
                  <span>
                    Strict: refuse settings this model&apos;s upstream cannot honour (e.g. <code>top_k</code>, <code>seed</code>) with a 400, instead of dropping them and naming them in
                    <code> x-gateway-dropped-params</code>.
                  </span>
                </label>
              )}
              {form.kind === "text" &&
                CLASS_FIELDS.map(([k, name]) => (
                  <TextField
                    key={k}
                    label={`${name[0]!.toUpperCase()}${name.slice(1)} per 1M tokens`}
                    inputMode="decimal"
                    value={form[k]}
                    onChange={set(k)}
                    optional
                    hint={form[k].trim() ? undefined : `Empty: billed at the ${k === "reasoningPerMTok" ? "output" : "input"} price.`}
                  />
                ))}
            </div>
          )}
          {form.kind === "image" && (
            <div className="space-y-2">
              {form.images.map((r, i) => (
                <div key={i} className="flex items-end gap-2">
                  <TextField className="flex-1" label={i === 0 ? "quality:size" : <span className="sr-only">quality:size</span>} value={r.key} placeholder="high:1024x1024 or *" onChange={(e) => setForm({ ...form, images: form.images.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)) })} />
                  <TextField className="w-32" label={i === 0 ? "USD per image" : <span className="sr-only">USD per image</span>} inputMode="decimal" value={r.usd} onChange={(e) => setForm({ ...form, images: form.images.map((x, j) => (j === i ? { ...x, usd: e.target.value } : x)) })} />
                  <Button variant="ghost" size="sm" aria-label={`Remove price ${r.key}`} onClick={() => setForm({ ...form, images: form.images.filter((_, j) => j !== i) })}>
                    Remove
                  </Button>
                </div>
              ))}
              <Button variant="secondary" size="sm" onClick={() => setForm({ ...form, images: [...form.images, { key: "", usd: "" }] })}>
                Add a quality and size
              </Button>
            </div>
          )}
          {form.kind === "video" && (
            <div className="grid gap-4 sm:grid-cols-3">
              <SelectField label="Charged" value={form.videoMode} onChange={set("videoMode")}>
                <option value="perVideo">Per video</option>
                <option value="perSecond">Per second</option>
                <option value="perSecondByResolution">Per second, by resolution</option>
              </SelectField>
              {form.videoMode !== "perSecondByResolution" && <TextField label="USD" inputMode="decimal" value={form.videoUsd} onChange={set("videoUsd")} />}
              <SelectField label="Family" value={form.family} onChange={set("family")} optional>
                <option value="">—</option>
                {["t2v", "i2v", "r2v", "extend", "second", "third"].map((f) => (
                  <option key={f}>{f}</option>
                ))}
              </SelectField>
            </div>
          )}
          {form.kind === "video" && form.videoMode === "perSecondByResolution" && (
            <div className="mt-3 space-y-2">
              {form.videoRows.map((r, i) => (
                <div key={i} className="flex items-end gap-2">
                  <TextField className="flex-1" label={i === 0 ? "Resolution" : <span className="sr-only">Resolution</span>} value={r.key} placeholder="1080p or 1080p:audio" onChange={(e) => setForm({ ...form, videoRows: form.videoRows.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)) })} />
                  <TextField className="w-32" label={i === 0 ? "USD per second" : <span className="sr-only">USD per second</span>} inputMode="decimal" value={r.usd} onChange={(e) => setForm({ ...form, videoRows: form.videoRows.map((x, j) => (j === i ? { ...x, usd: e.target.value } : x)) })} />
                  <Button variant="ghost" size="sm" aria-label={`Remove price ${r.key}`} onClick={() => setForm({ ...form, videoRows: form.videoRows.filter((_, j) => j !== i) })}>
                    Remove
                  </Button>
                </div>
              ))}
              <Button variant="secondary" size="sm" onClick={() => setForm({ ...form, videoRows: [...form.videoRows, { key: "", usd: "" }] })}>
                Add a resolution
              </Button>
            </div>
          )}
          <GroupError message={err("price")} />
        </fieldset>
        <fieldset className="rounded-md border border-zinc-200 p-4">
          <legend className="px-1 text-sm font-medium text-zinc-800">Lifecycle</legend>
          <div className="grid gap-4 sm:grid-cols-3">
            <TextField label="Deprecated from" value={form.deprecatedAt} onChange={set("deprecatedAt")} error={err("deprecatedAt")} placeholder="2026-09-24" optional hint="Replies then carry Deprecation and Sunset headers." />
            <TextField label="Shut down from" value={form.shutdownAt} onChange={set("shutdownAt")} error={err("shutdownAt")} placeholder="2027-01-01T00:00:00Z" optional hint="Requests then get a 410." />
            <TextField label="Successor model id" value={form.successor} onChange={set("successor")} error={err("successor")} optional hint="A model of the same kind." />
            <label className="flex items-start gap-2 text-sm text-zinc-700 sm:col-span-3">
              <input type="checkbox" className="mt-0.5" checked={form.serveSuccessorAfterShutdown} onChange={(e) => setForm((f) => ({ ...f, serveSuccessorAfterShutdown: e.target.checked }))} />
              <span>After the shutdown, serve requests with the successor at its price (<code>x-gateway-model</code> names it) instead of the 410.</span>
            </label>
          </div>
          <GroupError message={err("serveSuccessorAfterShutdown")} />
        </fieldset>
    </FormDialog>
  );
}

export function ModelsTab() {
  const q = useAdminModels();
  const [dialog, setDialog] = useState<{ open: boolean; editing: AdminModel | null }>({ open: false, editing: null });
  const toggle = useAdminMutation(({ id, enabled }: { id: string; enabled: boolean }) => api(`/api/admin/models/${encodeURIComponent(id)}`, { method: "PATCH", body: { enabled } }), ["admin", "models"]);
  return (
    <Card>
      <CardHeader title="Models and prices" description="Each row is one route: a public model id served by an upstream." action={<Button size="sm" onClick={() => setDialog({ open: true, editing: null })}>Add model</Button>} />
      <FormError message={formError(toggle.error, [])} />
      <QueryState query={q} empty={(d) => (d.items.length ? null : <Empty title="No models" />)}>
        {(d) => (
          <DataTable
            label="Models"
            rows={d.items}
            rowKey={(m) => m.id}
            rowTestId="model-row"
            columns={[
              {
                header: "Model",
                cell: (m) => (
                  <>
                    <Mono className="font-medium text-zinc-900">{m.modelId}</Mono>
                    {m.upstreamModel !== m.modelId && <span className="block font-mono text-[11px] text-zinc-500">→ {m.upstreamModel}</span>}
                  </>
                ),
              },
              {
                header: "Kind",
                cell: (m) => (
                  <>
                    {m.kind}
                    {m.family && <span className="text-zinc-500"> · {m.family}</span>}
                  </>
                ),
              },
              { header: "Upstream", cell: (m) => <Mono>{m.upstreamId}</Mono> },
              { header: "Price", className: "max-w-80 truncate text-xs", props: (m) => ({ title: priceText(m.price) }), cell: (m) => priceText(m.price) },
              { header: "Priority", align: "right", cell: (m) => m.priority },
              { header: "Weight", align: "right", cell: (m) => m.weight },
              {
                header: "Status",
                cell: (m) => (
                  <span className="inline-flex flex-wrap gap-1">
                    {m.enabled ? <Badge tone="green">Enabled</Badge> : <Badge>Disabled</Badge>}
                    <LifecycleBadge m={m} />
                  </span>
                ),
              },
              {
                header: "Actions",
                sticky: true,
                cell: (m) => (
                  <span className="inline-flex gap-1">
                    <Button variant="ghost" size="sm" onClick={() => setDialog({ open: true, editing: m })}>
                      Edit
                    </Button>
                    <Button variant="ghost" size="sm" onClick={() => toggle.mutate({ id: m.id, enabled: !m.enabled })}>
                      {m.enabled ? "Disable" : "Enable"}
                    </Button>
                  </span>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      {q.data && q.data.deprecatedCallers.length > 0 && <DeprecatedCallers rows={q.data.deprecatedCallers} />}
      <ModelDialog open={dialog.open} editing={dialog.editing} onClose={() => setDialog({ open: false, editing: null })} />
    </Card>
  );
}

/** Keys that called a deprecated model in the last 30 days: whom to tell before the shutdown. */
function DeprecatedCallers({ rows }: { rows: DeprecatedCaller[] }) {
  return (
    <div className="mt-6">
      <h3 className="mb-2 text-sm font-medium text-zinc-800">Keys still calling deprecated models (last 30 days)</h3>
      <DataTable
        label="Keys still calling deprecated models"
        rows={rows}
        rowKey={(r) => `${r.model}\u0000${r.keyId}`}
        rowTestId="deprecated-caller-row"
        columns={[
          { header: "Model", cell: (r) => <Mono>{r.model}</Mono> },
          { header: "Organisation", cell: (r) => r.accountName },
          {
            header: "Key",
            cell: (r) => (
              <>
                {r.keyName || <span className="text-zinc-500">unnamed</span>} <Mono className="text-zinc-500">{r.keyPrefix}…</Mono>
              </>
            ),
          },
          { header: "Requests", align: "right", cell: (r) => r.requests },
          { header: "Last call", cell: (r) => (r.lastAt ? new Date(r.lastAt).toLocaleString() : "—") },
        ]}
      />
    </div>
  );
}
