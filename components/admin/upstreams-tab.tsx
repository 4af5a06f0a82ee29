"use client";
import { useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { useAdminMutation, useAdminUpstreams } from "../console/hooks";
import type { AdminUpstream } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { Dialog } from "../ui/dialog";
import { FormError, SelectField, TextAreaField, TextField } from "../ui/field";
import { Empty, QueryState } from "../ui/states";
import { Mono, Table, Td, Th } from "../ui/table";
import { UpstreamHealthCard } from "./upstream-health-card";

const PROTOCOLS = ["openai", "openai-responses", "anthropic", "gemini", "openai-video", "azure-openai", "bedrock", "vertex", "demo"];
/** The dialects of an `openai` upstream (db/schema.ts OPENAI_VENDORS; the server checks the list). */
const VENDORS = ["openai", "xai", "deepseek", "qwen", "moonshot", "zhipu", "mistral", "groq", "together", "fireworks", "openrouter"];
/** Azure OpenAI's settings (lib/gateway/upstreams/azure-openai.ts); the client secret is write-only like the key. */
const AZURE_FIELDS = ["apiVersion", "tenantId", "clientId", "tokenUrl"] as const;
/** Bedrock's secrets (write-only; none at all: the server's AWS credential chain). */
const AWS_SECRETS = ["accessKeyId", "secretAccessKey", "sessionToken"] as const;
const FIELDS = ["id", "protocol", "baseUrl", "apiKey", "timeoutMs", "vendor", "textApi", "clientSecret", "region", "project", "serviceAccount", ...AZURE_FIELDS, ...AWS_SECRETS];
/** Protocols whose base URL has a default (the cloud's regional endpoint). */
const OPTIONAL_BASE_URL = ["demo", "bedrock", "vertex"];
const EMPTY = { id: "", protocol: "openai", baseUrl: "", apiKey: "", timeoutMs: "", vendor: "openai", apiVersion: "", textApi: "chat", tenantId: "", clientId: "", tokenUrl: "", clientSecret: "", region: "", accessKeyId: "", secretAccessKey: "", sessionToken: "", project: "", serviceAccount: "" };

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
      apiVersion: st.apiVersion ?? "",
      textApi: st.textApi ?? "chat",
      tenantId: st.tenantId ?? "",
      clientId: st.clientId ?? "",
      tokenUrl: st.tokenUrl ?? "",
      region: st.region ?? "",
      project: st.project ?? "",
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
    if (form.protocol === "azure-openai") {
      for (const f of AZURE_FIELDS) body[f] = form[f].trim();
      body.textApi = form.textApi;
      if (form.clientSecret) body.clientSecret = form.clientSecret;
    }
    if (form.protocol === "vertex") {
      Object.assign(body, { project: form.project.trim(), region: form.region.trim(), tokenUrl: form.tokenUrl.trim() });
      if (form.serviceAccount) body.serviceAccount = form.serviceAccount.trim();
    }
    if (form.protocol === "bedrock") {
      body.region = form.region.trim();
      for (const f of AWS_SECRETS) if (form[f]) body[f] = form[f].trim();
    }
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
    <Dialog open={open} onClose={close} title={editing ? `Edit upstream “${editing.id}”` : "Add an upstream"} description="The provider the gateway calls. Its API key is encrypted at rest and never shown again.">
      <form onSubmit={submit} noValidate className="space-y-4">
        <FormError message={formError(save.error, FIELDS)} />
        {editing?.source === "config" && <p className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900">This upstream comes from the gateway config file; the file wins again at the next start.</p>}
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Id" value={form.id} onChange={(e) => setForm({ ...form, id: e.target.value })} error={err("id")} disabled={Boolean(editing)} placeholder="e.g. openai-main" />
          <SelectField label="Protocol" value={form.protocol} onChange={(e) => setForm({ ...form, protocol: e.target.value })} disabled={Boolean(editing)} error={err("protocol")}>
            {PROTOCOLS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </SelectField>
        </div>
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
            <TextField label="Entra tenant ID" value={form.tenantId} onChange={(e) => setForm({ ...form, tenantId: e.target.value })} error={err("tenantId")} optional hint="Entra ID instead of an API key: the app registration's tenant, client id and secret." />
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
        {form.protocol === "vertex" && (
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
              optional={Boolean(editing)}
              hint={editing?.hasCredentials ? "A key is set. Leave empty to keep it." : "The key file's contents; stored encrypted, never shown again."}
            />
            <TextField label="Token URL" value={form.tokenUrl} onChange={(e) => setForm({ ...form, tokenUrl: e.target.value })} error={err("tokenUrl")} optional placeholder="the key's token_uri" />
          </div>
        )}
        {form.protocol === "bedrock" && (
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField label="AWS region" value={form.region} onChange={(e) => setForm({ ...form, region: e.target.value })} error={err("region")} placeholder="us-east-1" hint="A model's upstream model is its Bedrock model id or inference profile (us.anthropic.claude-…)." />
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
        <TextField label="Base URL" value={form.baseUrl} onChange={(e) => setForm({ ...form, baseUrl: e.target.value })} error={err("baseUrl")} placeholder={form.protocol === "azure-openai" ? "https://<resource>.openai.azure.com" : "https://api.openai.com/v1"} />
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
        <div className="flex justify-end gap-2 border-t border-zinc-100 pt-4">
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            {editing ? "Save" : "Add upstream"}
          </Button>
        </div>
      </form>
    </Dialog>
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
          <Table label="Upstreams">
            <thead>
              <tr>
                <Th>Id</Th>
                <Th>Protocol</Th>
                <Th>Base URL</Th>
                <Th>Key</Th>
                <Th>Status</Th>
                <Th>Connection</Th>
                <Th sticky>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {d.items.map((u) => (
                <tr key={u.id} data-testid="upstream-row">
                  <Td>
                    <Mono className="font-medium text-zinc-900">{u.id}</Mono>
                    <span className="block text-[11px] text-zinc-500">from {u.source}</span>
                  </Td>
                  <Td>
                    {u.protocol}
                    {u.settings.vendor && u.settings.vendor !== "openai" && <span className="block text-[11px] text-zinc-500">{u.settings.vendor}</span>}
                  </Td>
                  <Td className="max-w-64 truncate" title={u.baseUrl}>
                    <Mono>{u.baseUrl || "—"}</Mono>
                  </Td>
                  <Td>{u.hasApiKey ? <Badge>Set</Badge> : <span className="text-xs text-zinc-500">None</span>}</Td>
                  <Td>{u.enabled ? <Badge tone="green">Enabled</Badge> : <Badge tone="neutral">Disabled</Badge>}</Td>
                  <Td className="max-w-64 whitespace-normal! text-xs" aria-live="polite">
                    {tests[u.id]?.pending ? "Testing…" : tests[u.id] ? <span className={tests[u.id]!.ok ? "text-emerald-700" : "text-red-600"}>{tests[u.id]!.message}{tests[u.id]!.latencyMs ? ` (${tests[u.id]!.latencyMs} ms)` : ""}</span> : <span className="text-zinc-500">—</span>}
                  </Td>
                  <Td sticky className="text-right">
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
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryState>
      <UpstreamDialog open={dialog.open} editing={dialog.editing} onClose={() => setDialog({ open: false, editing: null })} />
    </Card>
    <UpstreamHealthCard />
    </div>
  );
}
