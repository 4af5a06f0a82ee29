"use client";
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../console/api";
import { useCreateKey, useMe, useModels, useUpdateKey } from "../console/hooks";
import type { CreatedKey, KeyView } from "../console/types";
import { Dialog } from "../ui/dialog";
import { DialogForm } from "../ui/form-dialog";
import { TextField } from "../ui/field";
import { RevealKey } from "./reveal-key";

const FIELDS = ["name", "allowedModels", "limitUsd", "rpm", "tpm", "maxConcurrent", "expiresAt"];

interface Form {
  name: string;
  scope: "all" | "some";
  models: string[];
  limitUsd: string;
  rpm: string;
  tpm: string;
  maxConcurrent: string;
  expires: string;
}

const EMPTY: Form = { name: "", scope: "all", models: [], limitUsd: "", rpm: "", tpm: "", maxConcurrent: "", expires: "" };

export function validateKeyForm(f: Form, now = Date.now()): Partial<Record<"name" | "allowedModels" | "limitUsd" | "rpm" | "tpm" | "maxConcurrent" | "expiresAt", string>> {
  const e: Partial<Record<"name" | "allowedModels" | "limitUsd" | "rpm" | "tpm" | "maxConcurrent" | "expiresAt", string>> = {};
  if (!f.name.trim()) e.name = "Give the key a name, such as “production” or “laptop”.";
  else if (f.name.trim().length > 100) e.name = "Use at most 100 characters.";
  if (f.scope === "some" && !f.models.length) e.allowedModels = "Pick at least one model, or allow all models.";
  if (f.limitUsd && !/^\d+(\.\d{1,6})?$/.test(f.limitUsd.trim())) e.limitUsd = "Enter a dollar amount such as 25 or 0.50.";
  if (f.rpm && (!/^\d+$/.test(f.rpm) || Number(f.rpm) < 1)) e.rpm = "Enter a whole number of requests per minute (1 or more).";
  if (f.tpm && (!/^\d+$/.test(f.tpm) || Number(f.tpm) < 1)) e.tpm = "Enter a whole number of tokens per minute (1 or more).";
  if (f.maxConcurrent && (!/^\d+$/.test(f.maxConcurrent) || Number(f.maxConcurrent) < 1)) e.maxConcurrent = "Enter a whole number of requests (1 or more).";
  if (f.expires && !(new Date(f.expires).getTime() > now)) e.expiresAt = "Pick a time in the future.";
  return e;
}

/** An ISO time as the value of a datetime-local input (local time, minutes). */
function localInput(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function fromKey(k: KeyView): Form {
  return {
    name: k.name,
    scope: k.allowedModels ? "some" : "all",
    models: k.allowedModels ?? [],
    limitUsd: k.limitMicroUsd === null ? "" : String(k.limitMicroUsd / 1_000_000),
    rpm: k.rpm === null ? "" : String(k.rpm),
    tpm: k.tpm === null ? "" : String(k.tpm),
    maxConcurrent: k.maxConcurrent === null ? "" : String(k.maxConcurrent),
    expires: localInput(k.expiresAt),
  };
}

/** Creates a key (then reveals it once), or edits one (`editing`): name, models, limits, expiry. */
export function CreateKeyDialog({ open, onClose, editing = null }: { open: boolean; onClose: () => void; editing?: KeyView | null }) {
  const [form, setForm] = useState<Form>(EMPTY);
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  const [errors, setErrors] = useState<ReturnType<typeof validateKeyForm>>({});
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const models = useModels();
  const me = useMe();
  const createKey = useCreateKey();
  const updateKey = useUpdateKey();
  const create = editing ? updateKey : createKey;
  if (open && editing && loadedFor !== editing.id) {
    setLoadedFor(editing.id);
    setForm(fromKey(editing));
  }

  function close() {
    setForm(EMPTY);
    setLoadedFor(null);
    setErrors({});
    setCreated(null);
    createKey.reset();
    updateKey.reset();
    onClose();
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const v = validateKeyForm(form);
    setErrors(v);
    if (Object.keys(v).length) return;
    const body = {
      name: form.name.trim(),
      allowedModels: form.scope === "some" ? form.models : [],
      limitUsd: form.limitUsd.trim(),
      rpm: form.rpm,
      tpm: form.tpm,
      maxConcurrent: form.maxConcurrent,
      expiresAt: form.expires ? new Date(form.expires).toISOString() : "",
    };
    try {
      if (editing) {
        await updateKey.mutateAsync({ id: editing.id, body });
        close();
      } else {
        const r = await createKey.mutateAsync(body);
        setCreated(r.key);
      }
    } catch {
      /* shown from create.error */
    }
  }

  const err = (f: keyof typeof errors) => errors[f] ?? fieldError(create.error, f);
  // Editing a field clears its error; the next submit validates again.
  const edit = (patch: Partial<Form>, field: keyof typeof errors) => {
    setForm({ ...form, ...patch });
    if (errors[field]) setErrors({ ...errors, [field]: undefined });
  };

  return (
    <Dialog
      open={open}
      onClose={close}
      title={created ? "Your new API key" : editing ? `Edit “${editing.name}”` : "Create an API key"}
      description={created ? undefined : editing ? "Changes apply to the next request made with this key." : "Keys authenticate your requests. You can limit what each one may spend and use."}
      wide
    >
      {created ? (
        <RevealKey secret={created.key} onDone={close} baseUrl={me.data?.publicBaseUrl} />
      ) : (
        <DialogForm
          onSubmit={submit}
          onCancel={close}
          className="space-y-5"
          error={formError(create.error, FIELDS)}
          submitLabel={editing ? "Save changes" : "Create key"}
          submitting={create.isPending}
          submitTestId="create-key-submit"
        >
          <TextField label="Name" name="name" value={form.name} onChange={(e) => edit({ name: e.target.value }, "name")} error={err("name")} placeholder="e.g. production" autoFocus />
          <fieldset>
            <legend className="mb-1.5 text-sm font-medium text-zinc-800">Models</legend>
            <div className="flex gap-4 text-sm">
              <label className="inline-flex items-center gap-2">
                <input type="radio" name="scope" checked={form.scope === "all"} onChange={() => setForm({ ...form, scope: "all" })} />
                All models
              </label>
              <label className="inline-flex items-center gap-2">
                <input type="radio" name="scope" checked={form.scope === "some"} onChange={() => setForm({ ...form, scope: "some" })} />
                Only these models
              </label>
            </div>
            {form.scope === "some" && (
              <div className="mt-3 max-h-48 overflow-y-auto rounded-md border border-zinc-200 p-2" role="group" aria-label="Allowed models">
                {models.isPending && <p className="p-2 text-sm text-zinc-500">Loading models…</p>}
                {models.isError && <p className="p-2 text-sm text-red-600">Could not load the model list.</p>}
                {models.data?.items.length === 0 && <p className="p-2 text-sm text-zinc-500">No models are available to this account.</p>}
                {models.data?.items.map((m) => (
                  <label key={m.id} className="flex items-center gap-2 rounded px-2 py-1 text-sm hover:bg-zinc-50">
                    <input
                      type="checkbox"
                      checked={form.models.includes(m.id)}
                      onChange={(e) => edit({ models: e.target.checked ? [...form.models, m.id] : form.models.filter((x) => x !== m.id) }, "allowedModels")}
                    />
                    <span className="font-mono text-xs">{m.id}</span>
                    <span className="ml-auto text-xs text-zinc-500">{m.kind}</span>
                  </label>
                ))}
              </div>
            )}
            {err("allowedModels") && (
              <p role="alert" className="mt-1.5 text-xs text-red-600">
                {err("allowedModels")}
              </p>
            )}
          </fieldset>
          <div className="grid gap-4 sm:grid-cols-3">
            <TextField label="Spend limit (USD)" name="limitUsd" inputMode="decimal" value={form.limitUsd} onChange={(e) => edit({ limitUsd: e.target.value }, "limitUsd")} error={err("limitUsd")} optional placeholder="No limit" />
            <TextField label="Requests / minute" name="rpm" inputMode="numeric" value={form.rpm} onChange={(e) => edit({ rpm: e.target.value }, "rpm")} error={err("rpm")} optional placeholder="Default" />
            <TextField label="Tokens / minute" name="tpm" inputMode="numeric" value={form.tpm} onChange={(e) => edit({ tpm: e.target.value }, "tpm")} error={err("tpm")} optional placeholder="No limit" />
            <TextField label="Concurrent requests" name="maxConcurrent" inputMode="numeric" value={form.maxConcurrent} onChange={(e) => edit({ maxConcurrent: e.target.value }, "maxConcurrent")} error={err("maxConcurrent")} optional placeholder="No limit" />
            <TextField label="Expires" name="expires" type="datetime-local" value={form.expires} onChange={(e) => edit({ expires: e.target.value }, "expiresAt")} error={err("expiresAt")} optional />
          </div>
        </DialogForm>
      )}
    </Dialog>
  );
}
