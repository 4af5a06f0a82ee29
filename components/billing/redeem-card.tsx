"use client";
/** Billing: redeem a code an administrator handed out; the balance and ledger refresh. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, ApiError } from "../console/api";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { TextField } from "../ui/field";

export function RedeemCard() {
  const qc = useQueryClient();
  const [code, setCode] = useState("");
  const redeem = useMutation({
    mutationFn: (c: string) => api<{ amountMicroUsd: number; message: string }>("/api/console/billing/redeem", { method: "POST", body: { code: c } }),
    onSuccess: () => {
      setCode("");
      for (const k of ["billing", "me", "ledger", "receipts", "overview"]) void qc.invalidateQueries({ queryKey: [k] });
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    if (code.trim()) redeem.mutate(code.trim());
  }
  const error = redeem.error instanceof ApiError ? redeem.error.message : redeem.error ? "Could not redeem the code. Try again." : undefined;
  return (
    <Card>
      <CardHeader title="Redeem a code" description="Codes from your gateway's administrators add credit to your balance, once per account." />
      <CardBody>
        <form onSubmit={submit} className="flex flex-wrap items-start gap-2" data-testid="redeem-form">
          <div className="min-w-56 flex-1">
            <TextField
              label="Code"
              name="code"
              placeholder="GW-XXXX-XXXX-XXXX-XXXX"
              autoComplete="off"
              spellCheck={false}
              value={code}
              onChange={(e) => {
                setCode(e.target.value);
                if (redeem.isError || redeem.isSuccess) redeem.reset();
              }}
              error={error}
            />
          </div>
          <Button type="submit" className="mt-6" loading={redeem.isPending} disabled={!code.trim()}>
            Redeem
          </Button>
        </form>
        {redeem.isSuccess && (
          <p className="mt-2 text-sm text-green-700" role="status" data-testid="redeem-ok">
            {redeem.data.message}
          </p>
        )}
      </CardBody>
    </Card>
  );
}
