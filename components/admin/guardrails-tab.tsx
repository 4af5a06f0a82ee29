"use client";
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, formError } from "../console/api";
import { useAdminMutation } from "../console/hooks";
import type { AdminGuardrail } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, TextAreaField } from "../ui/field";
import { Empty, QueryState } from "../ui/states";
import { Table, Td, Th } from "../ui/table";

const EXAMPLE = JSON.stringify({ id: "no-card-numbers", stage: "pre_request", type: "pii", action: "redact" }, null, 2);

/**
 * Guardrails (docs/guardrails.md): each entry is written as in the config file's `guardrails`
 * list and checked by the same schema; the file's own entries are shown read-only.
 */
export function GuardrailsTab() {
  const list = useQuery({ queryKey: ["admin", "guardrails"], queryFn: () => api<{ items: AdminGuardrail[] }>("/api/admin/guardrails") });
  const [editing, setEditing] = useState<string | null>(null);
  const [text, setText] = useState(EXAMPLE);
  const [parseError, setParseError] = useState<string | undefined>();
  const save = useAdminMutation(({ id, body }: { id: string | null; body: unknown }) =>
    id ? api(`/api/admin/guardrails/${encodeURIComponent(id)}`, { method: "PUT", body }) : api("/api/admin/guardrails", { method: "POST", body }),
  );
  const remove = useAdminMutation((id: string) => api(`/api/admin/guardrails/${encodeURIComponent(id)}`, { method: "DELETE" }));
  async function submit(e: FormEvent) {
    e.preventDefault();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      setParseError("The entry is not valid JSON.");
      return;
    }
    setParseError(undefined);
    try {
      await save.mutateAsync({ id: editing, body });
      setEditing(null);
      setText(EXAMPLE);
    } catch {
      /* shown below */
    }
  }
  function edit(g: AdminGuardrail) {
    const { secret, ...rest } = g.definition;
    setEditing(g.id);
    // The stored secret is kept when the edit leaves it out.
    setText(JSON.stringify(secret ? { ...rest, secret: "" } : rest, null, 2));
  }
  return (
    <div className="space-y-6">
      <Card>
        <CardHeader
          title={editing ? `Edit guardrail ${editing}` : "Add a guardrail"}
          description="One entry as in the config file's guardrails list: id, stage (pre_request or post_response), type (regex, pii or webhook) and its fields, failPolicy, stream, models, organisations, enabled. It applies on every instance at once. Entries from the config file keep their ids and are changed there. A webhook's secret left empty keeps the stored one."
        />
        <CardBody>
          <form onSubmit={submit} noValidate className="space-y-4">
            <FormError message={parseError ?? formError(save.error, [])} />
            <TextAreaField label="Guardrail (JSON)" name="guardrail-json" rows={10} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} />
            <div className="flex justify-end gap-2">
              {editing && (
                <Button
                  variant="ghost"
                  type="button"
                  onClick={() => {
                    setEditing(null);
                    setText(EXAMPLE);
                  }}
                >
                  Cancel
                </Button>
              )}
              <Button type="submit" loading={save.isPending}>
                {editing ? "Save guardrail" : "Add guardrail"}
              </Button>
            </div>
          </form>
        </CardBody>
      </Card>
      {remove.error && <FormError message={formError(remove.error, [])} />}
      <Card>
        <QueryState query={list} empty={(d) => (d.items.length ? null : <Empty title="No guardrails yet" />)}>
          {(d) => (
            <Table label="Guardrails">
              <thead>
                <tr>
                  <Th>Guardrail</Th>
                  <Th>Stage</Th>
                  <Th>Type</Th>
                  <Th>Options</Th>
                  <Th sticky>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100 bg-white">
                {d.items.map((g) => (
                  <tr key={g.id} data-testid="admin-guardrail-row">
                    <Td>
                      <span className="font-mono text-xs text-zinc-900">{g.id}</span>
                    </Td>
                    <Td className="font-mono text-xs">{String(g.definition.stage)}</Td>
                    <Td className="font-mono text-xs">
                      {String(g.definition.type)}
                      {g.definition.action ? ` · ${String(g.definition.action)}` : ""}
                    </Td>
                    <Td>
                      <span className="inline-flex gap-1">
                        {g.definition.enabled === false && <Badge tone="red">Disabled</Badge>}
                        {g.definition.failPolicy === "open" && <Badge>Fail open</Badge>}
                        {g.source === "config" && <Badge>config file</Badge>}
                      </span>
                    </Td>
                    <Td sticky className="text-right">
                      {g.source === "console" && (
                        <span className="inline-flex gap-1">
                          <Button variant="ghost" size="sm" onClick={() => edit(g)}>
                            Edit
                          </Button>
                          <Button variant="ghost" size="sm" className="text-red-600 hover:bg-red-50" onClick={() => remove.mutate(g.id)}>
                            Delete
                          </Button>
                        </span>
                      )}
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </QueryState>
      </Card>
    </div>
  );
}
