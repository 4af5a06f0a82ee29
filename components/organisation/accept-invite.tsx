"use client";
import { useState } from "react";
import { api } from "../console/api";
import { Button } from "../ui/button";
import { FormError } from "../ui/field";

export function AcceptInvite({ token, orgName }: { token: string; orgName: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  return (
    <div className="space-y-3">
      <Button
        className="w-full"
        loading={busy}
        data-testid="accept-invite"
        onClick={async () => {
          setBusy(true);
          setError(undefined);
          try {
            await api("/api/console/join", { method: "POST", body: { token } });
            window.location.assign("/overview");
          } catch (err) {
            setError(err instanceof Error ? err.message : "Could not accept the invitation.");
            setBusy(false);
          }
        }}
      >
        Join {orgName}
      </Button>
      <FormError message={error} />
    </div>
  );
}
