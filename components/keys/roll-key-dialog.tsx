"use client";
import { useState, type FormEvent } from "react";
import { formError } from "../console/api";
import { when } from "../console/format";
import { useMe, useRollKey } from "../console/hooks";
import type { KeyView } from "../console/types";
import { Dialog } from "../ui/dialog";
import { DialogForm } from "../ui/form-dialog";
import { SelectField } from "../ui/field";
import { RevealKey } from "./reveal-key";

const GRACE = [
  { s: 0, label: "Immediately — the old secret stops now" },
  { s: 3600, label: "After 1 hour" },
  { s: 86_400, label: "After 24 hours" },
  { s: 7 * 86_400, label: "After 7 days" },
  { s: 30 * 86_400, label: "After 30 days" },
];

export function RollKeyDialog({ target, onClose }: { target: KeyView | null; onClose: () => void }) {
  const [grace, setGrace] = useState(86_400);
  const roll = useRollKey();
  const me = useMe();
  const [secret, setSecret] = useState<{ key: string; until: string | null } | null>(null);

  function close() {
    setSecret(null);
    roll.reset();
    onClose();
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!target) return;
    try {
      const r = await roll.mutateAsync({ id: target.id, graceSeconds: grace });
      setSecret({ key: r.key.key, until: r.key.previousExpiresAt });
    } catch {
      /* shown below */
    }
  }

  return (
    <Dialog open={Boolean(target)} onClose={close} title={secret ? "Rolled: your new secret" : `Roll “${target?.name ?? ""}”`} description={secret ? undefined : "A new secret for the same key: same id, name, models, limits and history."}>
      {secret ? (
        <RevealKey
          secret={secret.key}
          onDone={close}
          baseUrl={me.data?.publicBaseUrl}
          note={secret.until ? `The old secret keeps working until ${when(secret.until)}.` : "The old secret no longer works."}
        />
      ) : (
        <DialogForm onSubmit={submit} onCancel={close} className="space-y-5" error={formError(roll.error, [])} submitLabel="Roll key" submitting={roll.isPending}>
          <SelectField label="Old secret stops working" value={grace} onChange={(e) => setGrace(Number(e.target.value))} hint="Leave time to deploy the new secret everywhere the old one is used.">
            {GRACE.map((g) => (
              <option key={g.s} value={g.s}>
                {g.label}
              </option>
            ))}
          </SelectField>
        </DialogForm>
      )}
    </Dialog>
  );
}
