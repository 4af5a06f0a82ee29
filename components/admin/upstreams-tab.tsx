"use client";
import { useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { useAdminMutation, useAdminUpstreams } from "../console/hooks";
import type { AdminUpstream } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { DataTable } from "../ui/data-table";
import { FormDialog } from "../ui/form-dialog";
import { FormError, SelectField, TextAreaField, TextField } from "../ui/field";
import { Empty, QueryState } from "../ui/states";
import { Mono } from "../ui/table";
import { UpstreamHealthCard } from "./upstream-health-card";
import { PROVIDERS, UPSTREAM_PROTOCOLS, protocolsWith } from "../../lib/values";

/** The protocols as declared once (lib/values.ts PROVIDERS). */
const PROTOCOLS: readonly string[] = UPSTREAM_PROTOCOLS;
/** Google Cloud upstreams: a project, a location and a service account. */
const GOOGLE_CLOUD: readonly string[] = protocolsWith("project");
/** The dialects of an `openai` upstream (db/schema.ts OPENAI_VENDORS; the server checks the list). */
const VENDORS = ["openai", "xai", "deepseek", "qwen", "moonshot", "zhipu", "mistral", "groq", "together", "fireworks", "openrouter"];
/** Azure OpenAI's settings (lib/gateway/upstreams/azure-openai.ts); the client secret is write-only like the key. */
const AZURE_FIELDS = ["apiVersion", "tenantId", "clientId", "tokenUrl"] as const;
/** Bedrock's secrets (write-only; none at all: the server's AWS credential chain). */
const AWS_SECRETS = ["accessKeyId", "secretAccessKey", "sessionToken"] as const;
/** Bedrock's settings beyond the region (lib/gateway/upstreams/bedrock-invoke.ts, bedrock-converse.ts). */
const BEDROCK_FIELDS = ["claudeApi", "guardrailId", "guardrailVersion", "guardrailTrace"] as const;
/** Protocols whose vendor has a batch API the gateway can use (lib/gateway/upstreams/batch-apis.ts). */
const BATCH_PROTOCOLS: readonly string[] = ["openai", "anthropic", "gemini"];
const FIELDS = ["id", "protocol", "baseUrl", "apiKey", "timeoutMs", "vendor", "batches", "textApi", "clientSecret", "region", "project", "serviceAccount", ...AZURE_FIELDS, ...AWS_SECRETS, ...BEDROCK_FIELDS];
/** Protocols whose base URL has a default (the cloud's regional endpoint). */
const OPTIONAL_BASE_URL: readonly string[] = UPSTREAM_PROTOCOLS.filter((p) => PROVIDERS[p].defaultBaseUrl);
const EMPTY = { id: "", protocol: "openai", baseUrl: "", apiKey: "", timeoutMs: "", vendor: "openai", batches: "", apiVersion: "", textApi: "chat", tenantId: "", clientId: "", tokenUrl: "", clientSecret: "", region: "", accessKeyId: "", secretAccessKey: "", sessionToken: "", project: "", serviceAccount: "", claudeApi: "converse", guardrailId: "", guardrailVersion: "", guardrailTrace: "" };

function UpstreamDialog({ open, editing, onClose }: { open: boolean; editing: AdminUpstream | null; onClose: () => void }) {
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  if (open && editing && loadedFor !== editing.id) {
    setLoadedFor(editing.id);
    const st = editing.settings;
    setForm({
      ...EMPTY,
      id: editing.id,
      protocol: editing.protocol,
      baseUrl: editing.baseUrl,
      timeoutMs: editing.timeoutMs ? String(editing.timeoutMs) : "",
      vendor: st.vendor ?? "openai",
      batches: st.batches ?? "",
      apiVersion: st.apiVersion ?? "",
      textApi: st.textApi ?? "chat",
      tenantId: st.tenantId ?? "",
      clientId: st.clientId ?? "",
      tokenUrl: st.tokenUrl ?? "",
      region: st.region ?? "",
      project: st.project ?? "",
      claudeApi: st.claudeApi ?? "converse",
      guardrailId: st.guardrailId ?? "",
      guardrailVersion: st.guardrailVersion ?? "",
      guardrailTrace: st.guardrailTrace ?? "",
    });
  }
  const save = useAdminMutation((body: Record<string, unknown>) =>
    editing ? api(`/api/admin/upstreams/${encodeURIComponent(editing.id)}`, { method: "PATCH", body }) : api("/api/admin/upstreams", { method: "POST", body }),
  );
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
    if (!editing && !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(form.id)) next.id = "Lower-case letters, digits, - and _.";
    if (!(OPTIONAL_BASE_URL.includes(form.protocol) && !form.baseUrl.trim()) && !/^https?:\/\/\S+$/.test(form.baseUrl.trim())) next.baseUrl = "Enter an http(s) URL, e.g. https://api.openai.com/v1.";
    if (form.timeoutMs && !(/^\d+$/.test(form.timeoutMs) && Number(form.timeoutMs) >= 1000)) next.timeoutMs = "At least 1000 ms.";
    setErrors(next);
    if (Object.keys(next).length) return;
    const body: Record<string, unknown> = { baseUrl: form.baseUrl.trim(), timeoutMs: form.timeoutMs ? Number(form.timeoutMs) : null };
    if (form.apiKey) body.apiKey = form.apiKey;
    if (form.protocol === "openai") body.vendor = form.vendor;
    if (BATCH_PROTOCOLS.includes(form.protocol)) body.batches = form.batches;
    if (form.protocol === "azure-openai") {
      for (const f of AZURE_FIELDS) body[f] = form[f].trim();
      body.textApi = form.textApi;
      if (form.clientSecret) body.clientSecret = form.clientSecret;
    }
    if (GOOGLE_CLOUD.includes(form.protocol)) {
      Object.assign(body, { project: form.project.trim(), region: form.region.trim(), tokenUrl: form.tokenUrl.trim() });
      if (form.serviceAccount) body.serviceAccount = form.serviceAccount.trim();
    }
    if (form.protocol === "bedrock") {
      body.region = form.region.trim();
      for (const f of BEDROCK_FIELDS) body[f] = form[f].trim();
      for (const f of AWS_SECRETS) if (form[f]) body[f] = form[f].trim();
    }
    if (form.protocol === "kling") for (const f of ["accessKeyId", "secretAccessKey"] as const) if (form[f]) body[f] = form[f].trim();
    if (!editing) Object.assign(body, { id: form.id, protocol: form.protocol });
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
      title={editing ? `Edit upstream “${editing.id}”` : "Add an upstream"}
      description="The provider the gateway calls. Its API key is encrypted at rest and never shown again."
      onSubmit={submit}
      error={formError(save.error, FIELDS)}
      submitLabel={editing ? "Save" : "Add upstream"}
      submitting={save.isPending}
    >
        {editing?.source === "config" && <p className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900">This upstream comes from the gateway config file; the file wins again at the next start.</p>}
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Id" value={form.id} onChange={(e) => setForm({ ...form, id: e.target.value })} error={err("id")} disabled={Boolean(editing)} placeholder="e.g. openai-main" />
          <SelectField label="Protocol" value={form.protocol} onChange={(e) => setForm({ ...form, protocol: e.target.value })} disabled={Boolean(editing)} error={err("protocol")}>
            {PROTOCOLS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </SelectField>
        </div>
        {BATCH_PROTOCOLS.includes(form.protocol) && (
          <SelectField label="Batch lines" value={form.batches} onChange={(e) => setForm({ ...form, batches: e.target.value })} error={err("batches")} hint="Through the vendor's own batch API (its batch price), or run by the gateway line by line. Default: the vendor's API on the vendor's own host only.">
            <option value="">By host (default)</option>
            <option value="native">The vendor's batch API</option>
            <option value="gateway">Run by the gateway</option>
          </SelectField>
        )}
        {form.protocol === "openai" && (
          <SelectField label="Vendor" value={form.vendor} onChange={(e) => setForm({ ...form, vendor: e.target.value })} error={err("vendor")} hint="Whose Chat Completions dialect: how it reports usage and reasoning, and which parameters it takes.">
            {VENDORS.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </SelectField>
        )}
        {form.protocol === "azure-openai" && (
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField label="API version" value={form.apiVersion} onChange={(e) => setForm({ ...form, apiVersion: e.target.value })} error={err("apiVersion")} optional placeholder="v1" hint="v1, or a dated version such as 2024-10-21. A model's upstream model is its deployment name." />
            <SelectField label="Text API" value={form.textApi} onChange={(e) => setForm({ ...form, textApi: e.target.value })} error={err("textApi")}>
              <option value="chat">Chat Completions</option>
              <option value="responses">Responses</option>
            </SelectField>
            <TextField label="Entra tenant ID" value={form.tenantId} onChange={(e) => setForm({ ...form, tenantId: e.target.value })} error={err("tenantId")} optional hint="Entra ID instead of an API key: the app registration's tenant, client id and secret. With neither key nor secret: the server's managed identity (a client id alone picks a user-assigned one)." />
            <TextField label="Entra client ID" value={form.clientId} onChange={(e) => setForm({ ...form, clientId: e.target.value })} error={err("clientId")} optional />
            <TextField
              label="Entra client secret"
              type="password"
              autoComplete="off"
              value={form.clientSecret}
              onChange={(e) => setForm({ ...form, clientSecret: e.target.value })}
              error={err("clientSecret")}
              optional
              hint={editing ? (editing.hasCredentials ? "A secret is set. Leave empty to keep it." : "No secret is set.") : undefined}
            />
            <TextField label="Token URL" value={form.tokenUrl} onChange={(e) => setForm({ ...form, tokenUrl: e.target.value })} error={err("tokenUrl")} optional placeholder="Microsoft's, for the tenant" />
          </div>
        )}
        {GOOGLE_CLOUD.includes(form.protocol) && (
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField label="Google Cloud project" value={form.project} onChange={(e) => setForm({ ...form, project: e.target.value })} error={err("project")} placeholder="my-project" />
            <TextField label="Location" value={form.region} onChange={(e) => setForm({ ...form, region: e.target.value })} error={err("region")} placeholder="us-central1 or global" hint="A model's upstream model is its Vertex name: gemini-2.5-pro, or claude-… for Anthropic's." />
            <TextAreaField
              className="sm:col-span-2"
              label="Service account key (JSON)"
              rows={4}
              autoComplete="off"
              spellCheck={false}
              value={form.serviceAccount}
              onChange={(e) => setForm({ ...form, serviceAccount: e.target.value })}
              error={err("serviceAccount")}
              optional
              hint={editing?.hasCredentials ? "A key is set. Leave empty to keep it." : "The key file's (or an external-account file's) contents; stored encrypted, never shown again. None: the server's own Google identity (metadata server)."}
            />
            <TextField label="Token URL" value={form.tokenUrl} onChange={(e) => setForm({ ...form, tokenUrl: e.target.value })} error={err("tokenUrl")} optional placeholder="the key's token_uri" />
          </div>
        )}
        {form.protocol === "bedrock" && (
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField label="AWS region" value={form.region} onChange={(e) => setForm({ ...form, region: e.target.value })} error={err("region")} placeholder="us-east-1" hint="A model's upstream model is its Bedrock model id or inference profile (us.anthropic.claude-…)." />
            <SelectField label="Claude models through" value={form.claudeApi} onChange={(e) => setForm({ ...form, claudeApi: e.target.value })} error={err("claudeApi")} hint="InvokeModel takes Anthropic's own Messages body (what Claude Code uses); other models always use Converse.">
              <option value="converse">Converse</option>
              <option value="invoke">InvokeModel (Anthropic's body)</option>
            </SelectField>
            <TextField label="Guardrail ID" value={form.guardrailId} onChange={(e) => setForm({ ...form, guardrailId: e.target.value })} error={err("guardrailId")} optional hint="A Bedrock guardrail on every Converse call (it keeps Claude on Converse)." />
            <TextField label="Guardrail version" value={form.guardrailVersion} onChange={(e) => setForm({ ...form, guardrailVersion: e.target.value })} error={err("guardrailVersion")} optional placeholder="1 or DRAFT" />
            <SelectField label="Guardrail trace" value={form.guardrailTrace} onChange={(e) => setForm({ ...form, guardrailTrace: e.target.value })} error={err("guardrailTrace")}>
              <option value="">Bedrock's default</option>
              <option value="enabled">enabled</option>
              <option value="enabled_full">enabled_full</option>
              <option value="disabled">disabled</option>
            </SelectField>
            {AWS_SECRETS.map((f) => (
              <TextField
                key={f}
                label={{ accessKeyId: "Access key ID", secretAccessKey: "Secret access key", sessionToken: "Session token" }[f]}
                type={f === "accessKeyId" ? "text" : "password"}
                autoComplete="off"
                value={form[f]}
                onChange={(e) => setForm({ ...form, [f]: e.target.value })}
                error={err(f)}
                optional
                hint={f === "accessKeyId" ? (editing?.hasCredentials ? "Keys are set. Leave empty to keep them." : "None: the server's AWS credential chain (environment, profile, role).") : undefined}
              />
            ))}
          </div>
        )}
        {form.protocol === "kling" && (
          <div className="grid gap-4 sm:grid-cols-2">
            {(["accessKeyId", "secretAccessKey"] as const).map((f) => (
              <TextField
                key={f}
                label={f === "accessKeyId" ? "Access key" : "Secret key"}
                type={f === "accessKeyId" ? "text" : "password"}
                autoComplete="off"
                value={form[f]}
                onChange={(e) => setForm({ ...form, [f]: e.target.value })}
                error={err(f)}
                optional={Boolean(editing)}
                hint={f === "accessKeyId" ? (editing?.hasCredentials ? "Keys are set. Leave empty to keep them." : "Kling's API keys: the gateway signs a short-lived token with them.") : undefined}
              />
            ))}
          </div>
        )}
        <TextField label="Base URL" value={form.baseUrl} onChange={(e) => setForm({ ...form, baseUrl: e.target.value })} error={err("baseUrl")} placeholder={form.protocol === "azure-openai" ? "https://<resource>.openai.azure.com" : OPTIONAL_BASE_URL.includes(form.protocol) ? "the vendor's own address" : "https://api.openai.com/v1"} />
        <TextField
          label="API key"
          type="password"
          autoComplete="off"
          value={form.apiKey}
          onChange={(e) => setForm({ ...form, apiKey: e.target.value })}
          error={err("apiKey")}
          optional
          hint={editing ? (editing.hasApiKey ? "A key is set. Leave empty to keep it." : "No key is set.") : undefined}
        />
        <TextField label="Timeout (ms)" inputMode="numeric" value={form.timeoutMs} onChange={(e) => setForm({ ...form, timeoutMs: e.target.value })} error={err("timeoutMs")} optional placeholder="Route default" />
    </FormDialog>
  );
}

export function UpstreamsTab() {
  const q = useAdminUpstreams();
  const [dialog, setDialog] = useState<{ open: boolean; editing: AdminUpstream | null }>({ open: false, editing: null });
  const [tests, setTests] = useState<Record<string, { pending?: boolean; ok?: boolean; message?: string; latencyMs?: number }>>({});
  const toggle = useAdminMutation(({ id, enabled }: { id: string; enabled: boolean }) => api(`/api/admin/upstreams/${encodeURIComponent(id)}`, { method: "PATCH", body: { enabled } }));

  async function test(id: string) {
    setTests((t) => ({ ...t, [id]: { pending: true } }));
    try {
      const r = await api<{ ok: boolean; message: string; latencyMs: number }>(`/api/admin/upstreams/${encodeURIComponent(id)}/test`, { method: "POST" });
      setTests((t) => ({ ...t, [id]: r }));
    } catch (err) {
      setTests((t) => ({ ...t, [id]: { ok: false, message: err instanceof Error ? err.message : "Test failed." } }));
    }
  }

  return (
    <div className="space-y-6">
    <Card>
      <CardHeader title="Upstreams" description="Providers the gateway forwards to, in the protocol they speak." action={<Button size="sm" onClick={() => setDialog({ open: true, editing: null })}>Add upstream</Button>} />
      <FormError message={formError(toggle.error, [])} />
      <QueryState query={q} empty={(d) => (d.items.length ? null : <Empty title="No upstreams" />)}>
        {(d) => (
          <DataTable
            label="Upstreams"
            rows={d.items}
            rowKey={(u) => u.id}
            rowTestId="upstream-row"
            columns={[
              {
                header: "Id",
                cell: (u) => (
                  <>
                    <Mono className="font-medium text-zinc-900">{u.id}</Mono>
                    <span className="block text-[11px] text-zinc-500">from {u.source}</span>
                  </>
                ),
              },
              {
                header: "Protocol",
                cell: (u) => (
                  <>
                    {u.protocol}
                    {u.settings.vendor && u.settings.vendor !== "openai" && <span className="block text-[11px] text-zinc-500">{u.settings.vendor}</span>}
                  </>
                ),
              },
              { header: "Base URL", className: "max-w-64 truncate", props: (u) => ({ title: u.baseUrl }), cell: (u) => <Mono>{u.baseUrl || "—"}</Mono> },
              { header: "Key", cell: (u) => (u.hasApiKey ? <Badge>Set</Badge> : <span className="text-xs text-zinc-500">None</span>) },
              { header: "Status", cell: (u) => (u.enabled ? <Badge tone="green">Enabled</Badge> : <Badge tone="neutral">Disabled</Badge>) },
              {
                header: "Connection",
                className: "max-w-64 whitespace-normal! text-xs",
                props: () => ({ "aria-live": "polite" }),
                cell: (u) => {
                  const t = tests[u.id];
                  if (!t) return <span className="text-zinc-500">—</span>;
                  if (t.pending) return "Testing…";
                  return (
                    <span className={t.ok ? "text-emerald-700" : "text-red-600"}>
                      {t.message}
                      {t.latencyMs ? ` (${t.latencyMs} ms)` : ""}
                    </span>
                  );
                },
              },
              {
                header: "Actions",
                sticky: true,
                cell: (u) => (
                  <span className="inline-flex gap-1">
                    <Button variant="ghost" size="sm" onClick={() => test(u.id)}>
                      Test
                    </Button>
                    <Button variant="ghost" size="sm" onClick={() => setDialog({ open: true, editing: u })}>
                      Edit
                    </Button>
                    <Button variant="ghost" size="sm" onClick={() => toggle.mutate({ id: u.id, enabled: !u.enabled })}>
                      {u.enabled ? "Disable" : "Enable"}
                    </Button>
                  </span>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      <UpstreamDialog open={dialog.open} editing={dialog.editing} onClose={() => setDialog({ open: false, editing: null })} />
    </Card>
    <UpstreamHealthCard />
    </div>
  );
}
