"use client";
/**
 * Organisation → Content logs (owners and admins; docs/content-logs.md): the mode, the retention,
 * the redactions, the JSONL export and "delete all". Switching logging on applies to requests from
 * then on, and the card says so.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { ContentLogMode } from "@/lib/values";
import type { ContentLogSettingsView } from "@/lib/views";
import { api, fieldError, formError } from "../console/api";
import type { Wire } from "@/lib/console/wire";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, SelectField, TextAreaField, TextField } from "../ui/field";
import { ErrorState, Loading } from "../ui/states";

type Settings = Wire<ContentLogSettingsView>;
const BUILTINS = [
  ["api_keys", "API keys and tokens"],
  ["card_numbers", "Card numbers"],
  ["emails", "Email addresses"],
] as const;

export function ContentLogsCard() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["org", "content-logs"], queryFn: () => api<Settings>("/api/console/orgs/content-logs") });
  const save = useMutation({
    mutationFn: (body: { mode: ContentLogMode; retentionDays: number; redact: string[]; builtins: string[] }) => api<Settings>("/api/console/orgs/content-logs", { method: "PUT", body }),
    onSuccess: (s) => qc.setQueryData(["org", "content-logs"], s),
  });
  const purge = useMutation({ mutationFn: () => api<{ deleted: number }>("/api/console/orgs/content-logs", { method: "DELETE" }) });
  const [draft, setDraft] = useState<{ mode: ContentLogMode; retentionDays: string; redact: string; builtins: string[] } | null>(null);
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorState error={q.error} retry={() => q.refetch()} />;
  const s = q.data;
  const v = draft ?? { mode: s.mode, retentionDays: String(s.retentionDays), redact: s.redact.join("\n"), builtins: s.builtins };
  const turningOn = v.mode === "full" && s.mode !== "full";
  async function submit(e: FormEvent) {
    e.preventDefault();
    try {
      await save.mutateAsync({ mode: v.mode, retentionDays: Number(v.retentionDays), redact: v.redact.split("\n").map((l) => l.trim()).filter(Boolean), builtins: v.builtins });
      setDraft(null);
    } catch {
      /* shown below */
    }
  }
  return (
    <Card>
      <CardHeader
        title="Content logs"
        description="Keep the prompts and answers of this organisation's requests, encrypted, for the request inspector and a JSONL export. Off by default; a key can narrow it, never widen it."
      />
      <CardBody>
        <form onSubmit={submit} noValidate className="grid gap-4 sm:grid-cols-2" data-testid="content-logs-form">
          <SelectField label="Logging" value={v.mode} onChange={(e) => setDraft({ ...v, mode: e.target.value as ContentLogMode })} data-testid="content-log-mode">
            <option value="off">Off</option>
            <option value="metadata">Metadata only (the request log)</option>
            <option value="full">Prompts and answers</option>
          </SelectField>
          <TextField label="Retention (days)" inputMode="numeric" value={v.retentionDays} onChange={(e) => setDraft({ ...v, retentionDays: e.target.value })} error={fieldError(save.error, "retentionDays")} hint="Older content logs are deleted." />
          <fieldset className="space-y-1 text-sm sm:col-span-2">
            <legend className="mb-1 font-medium">Always redacted</legend>
            {BUILTINS.map(([id, label]) => (
              <label key={id} className="mr-4 inline-flex items-center gap-2">
                <input type="checkbox" checked={v.builtins.includes(id)} onChange={(e) => setDraft({ ...v, builtins: e.target.checked ? [...v.builtins, id] : v.builtins.filter((b) => b !== id) })} />
                {label}
              </label>
            ))}
          </fieldset>
          <TextAreaField
            className="sm:col-span-2"
            label="Your redaction patterns"
            optional
            rows={3}
            value={v.redact}
            onChange={(e) => setDraft({ ...v, redact: e.target.value })}
            error={fieldError(save.error, "redact")}
            hint="One regular expression per line (e.g. PROJECT-\d+). Matches are replaced before anything is stored."
          />
          {(turningOn || s.mode === "full") && (
            <p className="text-sm text-amber-700 sm:col-span-2" data-testid="content-log-note">
              {s.note}
            </p>
          )}
          <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
            <Button type="submit" loading={save.isPending} disabled={!draft}>
              Save content logging
            </Button>
            <a className="text-sm underline" href="/api/console/orgs/content-logs/export" download>
              Export as JSONL
            </a>
            <Button
              variant="ghost"
              loading={purge.isPending}
              onClick={() => {
                if (window.confirm("Delete every content log of this organisation now?")) purge.mutate();
              }}
            >
              Delete all content logs
            </Button>
            {purge.data && <span className="text-sm text-zinc-500">{purge.data.deleted} deleted.</span>}
          </div>
          <FormError message={formError(save.error, ["mode", "retentionDays", "redact", "builtins"])} />
        </form>
      </CardBody>
    </Card>
  );
}
