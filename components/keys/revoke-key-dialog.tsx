"use client";
import { formError } from "../console/api";
import { useRevokeKey } from "../console/hooks";
import type { KeyView } from "../console/types";
import { Button } from "../ui/button";
import { Dialog } from "../ui/dialog";
import { FormError } from "../ui/field";

export function RevokeKeyDialog({ target, onClose }: { target: KeyView | null; onClose: () => void }) {
  const revoke = useRevokeKey();
  function close() {
    revoke.reset();
    onClose();
  }
  return (
    <Dialog open={Boolean(target)} onClose={close} title={`Revoke “${target?.name ?? ""}”?`} description="Requests with this key are refused (HTTP 401) from the next one on. This cannot be undone.">
      <div className="space-y-5">
        <FormError message={formError(revoke.error, [])} />
        <p className="text-sm text-zinc-600">
          Key <code className="font-mono text-xs">{target ? `${target.prefix}…${target.last4}` : ""}</code>
        </p>
        <div className="flex justify-end gap-2 border-t border-zinc-100 pt-4">
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
          <Button
            variant="danger"
            loading={revoke.isPending}
            data-testid="confirm-revoke"
            onClick={async () => {
              if (!target) return;
              try {
                await revoke.mutateAsync(target.id);
                close();
              } catch {
                /* shown above */
              }
            }}
          >
            Revoke key
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
