"use client";
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { useAdminMutation } from "../console/hooks";
import type { AdminAlias } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, TextField } from "../ui/field";
import { Empty, QueryState } from "../ui/states";
import { DataTable } from "../ui/data-table";

const EMPTY = { id: "", targets: "", contextFallback: false };

/** Aliases: a name or a `*` pattern for an ordered list of models (docs/configuration.md, "Gateway config file"). */
export function AliasesTab() {
  const aliases = useQuery({ queryKey: ["admin", "aliases"], queryFn: () => api<{ items: AdminAlias[] }>("/api/admin/aliases") });
  const [form, setForm] = useState(EMPTY);
  const save = useAdminMutation((body: { id: string; targets: string[]; contextFallback: boolean }) => api("/api/admin/aliases", { method: "POST", body }));
  const remove = useAdminMutation((id: string) => api(`/api/admin/aliases/${encodeURIComponent(id)}`, { method: "DELETE" }));
  async function submit(e: FormEvent) {
    e.preventDefault();
    try {
      await save.mutateAsync({ id: form.id.trim(), targets: form.targets.split(",").map((t) => t.trim()).filter(Boolean), contextFallback: form.contextFallback });
      setForm(EMPTY);
    } catch {
      /* shown below */
    }
  }
  return (
    <div className="space-y-6">
      <Card>
        <CardHeader
          title="Add or replace an alias"
          description="Requests for the alias go to its targets in order (failover before the first byte), each charged at its own price. An exact model id wins over an alias; an alias name over a pattern; the most specific pattern wins."
        />
        <CardBody>
          <form onSubmit={submit} noValidate className="space-y-4">
            <FormError message={formError(save.error, ["id", "targets"])} />
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField label="Alias or pattern" name="alias-id" value={form.id} onChange={(e) => setForm({ ...form, id: e.target.value })} placeholder="claude-sonnet-4-5-*" error={fieldError(save.error, "id")} />
              <TextField label="Target models, in order" name="alias-targets" value={form.targets} onChange={(e) => setForm({ ...form, targets: e.target.value })} placeholder="model-a, model-b" error={fieldError(save.error, "targets")} />
            </div>
            <label className="flex items-center gap-2 text-sm text-zinc-700">
              <input type="checkbox" checked={form.contextFallback} onChange={(e) => setForm({ ...form, contextFallback: e.target.checked })} />
              Context-window fallback: a prompt too long for a target goes to the next
            </label>
            <div className="flex justify-end">
              <Button type="submit" loading={save.isPending}>
                Save alias
              </Button>
            </div>
          </form>
        </CardBody>
      </Card>
      {remove.error && <FormError message={formError(remove.error, [])} />}
      <Card>
        <QueryState query={aliases} empty={(d) => (d.items.length ? null : <Empty title="No aliases yet" />)}>
          {(d) => (
            <DataTable
              label="Aliases"
              rows={d.items}
              rowKey={(a) => a.id}
              rowTestId="admin-alias-row"
              columns={[
                {
                  header: "Alias",
                  cell: (a) => (
                    <>
                      <span className="font-mono text-xs text-zinc-900">{a.id}</span>
                      {a.id.includes("*") && <span className="ml-2 text-[11px] text-zinc-500">pattern</span>}
                    </>
                  ),
                },
                { header: "Targets", className: "font-mono text-xs", cell: (a) => a.targets.join(" → ") },
                {
                  header: "Options",
                  cell: (a) => (
                    <span className="inline-flex gap-1">
                      {a.contextFallback && <Badge tone="blue">Context fallback</Badge>}
                      {!a.enabled && <Badge tone="red">Disabled</Badge>}
                      {a.source !== "console" && <Badge>{a.source}</Badge>}
                    </span>
                  ),
                },
                {
                  header: "Actions",
                  sticky: true,
                  cell: (a) => (
                    <span className="inline-flex gap-1">
                      <Button variant="ghost" size="sm" onClick={() => setForm({ id: a.id, targets: a.targets.join(", "), contextFallback: a.contextFallback })}>
                        Edit
                      </Button>
                      <Button variant="ghost" size="sm" className="text-red-600 hover:bg-red-50" onClick={() => remove.mutate(a.id)}>
                        Delete
                      </Button>
                    </span>
                  ),
                },
              ]}
            />
          )}
        </QueryState>
      </Card>
    </div>
  );
}
