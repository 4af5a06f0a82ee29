"use client";
import { useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { num, usd } from "../console/format";
import { useAdminMutation, useAdminUsers, useMe } from "../console/hooks";
import type { AdminUser } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { DataTable } from "../ui/data-table";
import { Dialog } from "../ui/dialog";
import { FormDialog } from "../ui/form-dialog";
import { FormError, SelectField, TextField } from "../ui/field";
import { Empty, QueryState } from "../ui/states";
import { Day, Money } from "../ui/money";

function newIdempotencyKey() {
  return crypto.randomUUID().replace(/-/g, "");
}

function BalanceDialog({ user, onClose }: { user: AdminUser | null; onClose: () => void }) {
  const [form, setForm] = useState({ direction: "credit", usd: "", note: "", accountId: "" });
  const [idem, setIdem] = useState(newIdempotencyKey);
  const [errors, setErrors] = useState<{ usd?: string; note?: string }>({});
  const m = useAdminMutation((body: { direction: string; usd: string; note: string; idempotencyKey: string; accountId?: string }) =>
    api(`/api/admin/users/${encodeURIComponent(user!.id)}/balance`, { method: "POST", body }),
  );
  function close() {
    setForm({ direction: "credit", usd: "", note: "", accountId: "" });
    setErrors({});
    setIdem(newIdempotencyKey());
    m.reset();
    onClose();
  }
  async function submit(e: FormEvent) {
    e.preventDefault();
    const next: typeof errors = {};
    if (!/^\d+(\.\d{1,6})?$/.test(form.usd.trim()) || Number(form.usd) <= 0) next.usd = "Enter a positive dollar amount such as 25 or 0.50.";
    if (form.direction === "debit" && !form.note.trim()) next.note = "Say why (the note is required for a debit).";
    setErrors(next);
    if (Object.keys(next).length) return;
    try {
      await m.mutateAsync({ ...form, usd: form.usd.trim(), note: form.note.trim(), idempotencyKey: idem, accountId: form.accountId || undefined });
      close();
    } catch {
      /* shown below */
    }
  }
  return (
    <FormDialog
      open={Boolean(user)}
      onClose={close}
      title={`Adjust balance: ${user?.email ?? ""}`}
      description={user ? `${user.orgs.length > 1 ? "Pick whose balance changes below." : `Current balance ${usd(user.balanceMicroUsd)}.`} Each change is a ledger row and an audit entry.` : undefined}
      onSubmit={submit}
      error={formError(m.error, ["usd", "note"])}
      submitLabel={form.direction === "credit" ? "Add credit" : "Debit"}
      submitting={m.isPending}
    >
        {user && user.orgs.length > 1 && (
          <SelectField label="Organisation to adjust" value={form.accountId || user.accountId} onChange={(e) => setForm({ ...form, accountId: e.target.value })} hint="Whose balance changes: the user's own organisation, or a team they belong to.">
            {user.orgs.map((o) => (
              <option key={o.id} value={o.id}>
                {o.personal ? `${o.name} (personal)` : o.name} — {usd(o.balanceMicroUsd)}
              </option>
            ))}
          </SelectField>
        )}
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField label="Change" value={form.direction} onChange={(e) => setForm({ ...form, direction: e.target.value })}>
            <option value="credit">Credit (add)</option>
            <option value="debit">Debit (remove)</option>
          </SelectField>
          <TextField label="Amount (USD)" inputMode="decimal" value={form.usd} onChange={(e) => setForm({ ...form, usd: e.target.value })} error={errors.usd ?? fieldError(m.error, "usd")} />
        </div>
        <TextField label="Note" value={form.note} onChange={(e) => setForm({ ...form, note: e.target.value })} error={errors.note ?? fieldError(m.error, "note")} optional={form.direction === "credit"} placeholder="e.g. invoice 1042" />
    </FormDialog>
  );
}

type LimitField = "rpm" | "tpm" | "maxConcurrent";
const LIMIT_LABELS: Record<LimitField, string> = { rpm: "Requests / minute", tpm: "Tokens / minute", maxConcurrent: "Concurrent requests" };

/** The user's organisation's limits across all its keys; empty = none. */
function LimitsDialog({ user, onClose }: { user: AdminUser | null; onClose: () => void }) {
  const [form, setForm] = useState<Record<LimitField, string> | null>(null);
  const m = useAdminMutation((body: Record<LimitField, number | null>) => api(`/api/admin/users/${encodeURIComponent(user!.id)}/limits`, { method: "PUT", body }));
  const current = form ?? { rpm: String(user?.rpm ?? ""), tpm: String(user?.tpm ?? ""), maxConcurrent: String(user?.maxConcurrent ?? "") };
  const bad = (Object.keys(LIMIT_LABELS) as LimitField[]).filter((f) => current[f].trim() !== "" && !/^[1-9]\d*$/.test(current[f].trim()));
  function close() {
    setForm(null);
    m.reset();
    onClose();
  }
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (bad.length) return;
    const value = (f: LimitField) => (current[f].trim() === "" ? null : Number(current[f].trim()));
    try {
      await m.mutateAsync({ rpm: value("rpm"), tpm: value("tpm"), maxConcurrent: value("maxConcurrent") });
      close();
    } catch {
      /* shown below */
    }
  }
  return (
    <FormDialog
      open={Boolean(user)}
      onClose={close}
      title={`Limits: ${user?.email ?? ""}`}
      description="Across all of this organisation's keys. Empty = no limit. Past a limit, requests get a 429 with Retry-After."
      onSubmit={submit}
      error={formError(m.error, ["rpm", "tpm", "maxConcurrent"])}
      submitLabel="Save limits"
      submitting={m.isPending}
    >
        <div className="grid gap-4 sm:grid-cols-3">
          {(Object.keys(LIMIT_LABELS) as LimitField[]).map((f) => (
            <TextField
              key={f}
              label={LIMIT_LABELS[f]}
              name={f}
              inputMode="numeric"
              optional
              value={current[f]}
              onChange={(e) => setForm({ ...current, [f]: e.target.value })}
              error={bad.includes(f) ? "A whole number, 1 or more." : fieldError(m.error, f)}
            />
          ))}
        </div>
    </FormDialog>
  );
}

export function UsersTab() {
  const [q, setQ] = useState("");
  const [search, setSearch] = useState("");
  const [offset, setOffset] = useState(0);
  const users = useAdminUsers(search, offset);
  const me = useMe();
  const [adjusting, setAdjusting] = useState<AdminUser | null>(null);
  const [limiting, setLimiting] = useState<AdminUser | null>(null);
  const [confirm, setConfirm] = useState<{ user: AdminUser; body: { role?: string; disabled?: boolean } } | null>(null);
  const update = useAdminMutation(({ id, body }: { id: string; body: { role?: string; disabled?: boolean } }) => api(`/api/admin/users/${encodeURIComponent(id)}`, { method: "PATCH", body }));
  return (
    <>
      <form
        className="mb-4 flex max-w-md gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setOffset(0);
          setSearch(q.trim());
        }}
      >
        <label htmlFor="user-search" className="sr-only">
          Search by email
        </label>
        <input id="user-search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Search by email" className="block w-full rounded-md border border-zinc-300 px-3 py-2 text-sm shadow-sm" />
        <Button type="submit" variant="secondary">
          Search
        </Button>
      </form>
      {update.error && <FormError message={formError(update.error, [])} />}
      <Card>
        <QueryState query={users} empty={(d) => (d.items.length ? null : <Empty title="No users match" />)}>
          {(d) => (
            <>
              <DataTable
                label="Users"
                rows={d.items}
                rowKey={(u) => u.id}
                rowTestId="admin-user-row"
                columns={[
                  {
                    header: "User",
                    cell: (u) => (
                      <>
                        <span className="font-medium text-zinc-900">{u.email}</span>
                        <span className="block font-mono text-[11px] text-zinc-500">{u.id}</span>
                      </>
                    ),
                  },
                  { header: "Role", cell: (u) => (u.role === "admin" ? <Badge tone="blue">Admin</Badge> : <span className="text-xs text-zinc-500">User</span>) },
                  { header: "Status", cell: (u) => (u.disabled ? <Badge tone="red">Disabled</Badge> : <Badge tone="green">Active</Badge>) },
                  { header: "Balance", align: "right", cell: (u) => <Money micro={u.balanceMicroUsd} /> },
                  { header: "Keys", align: "right", cell: (u) => num(u.keys) },
                  { header: "Joined", cell: (u) => <Day iso={u.createdAt} /> },
                  {
                    header: "Actions",
                    sticky: true,
                    cell: (u) => (
                      <span className="inline-flex gap-1">
                        <Button variant="ghost" size="sm" onClick={() => setAdjusting(u)}>
                          Credit / debit
                        </Button>
                        <Button variant="ghost" size="sm" onClick={() => setLimiting(u)}>
                          Limits
                        </Button>
                        {u.id !== me.data?.user.id && (
                          <>
                            <Button variant="ghost" size="sm" onClick={() => setConfirm({ user: u, body: { role: u.role === "admin" ? "user" : "admin" } })}>
                              {u.role === "admin" ? "Remove admin" : "Make admin"}
                            </Button>
                            <Button
                              variant="ghost"
                              size="sm"
                              className={u.disabled ? "" : "text-red-600 hover:bg-red-50"}
                              onClick={() => (u.disabled ? update.mutate({ id: u.id, body: { disabled: false } }) : setConfirm({ user: u, body: { disabled: true } }))}
                            >
                              {u.disabled ? "Enable" : "Disable"}
                            </Button>
                          </>
                        )}
                      </span>
                    ),
                  },
                ]}
              />
              {(offset > 0 || d.nextOffset !== null) && (
                <div className="flex justify-between border-t border-zinc-100 px-4 py-3">
                  <Button variant="secondary" size="sm" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - 50))}>
                    Previous
                  </Button>
                  <Button variant="secondary" size="sm" disabled={d.nextOffset === null} onClick={() => d.nextOffset !== null && setOffset(d.nextOffset)}>
                    Next
                  </Button>
                </div>
              )}
            </>
          )}
        </QueryState>
      </Card>
      <BalanceDialog user={adjusting} onClose={() => setAdjusting(null)} />
      <LimitsDialog user={limiting} onClose={() => setLimiting(null)} />
      <ConfirmUserChange
        change={confirm}
        pending={update.isPending}
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          if (!confirm) return;
          try {
            await update.mutateAsync({ id: confirm.user.id, body: confirm.body });
          } finally {
            setConfirm(null);
          }
        }}
      />
    </>
  );
}

/** Role and disable changes name their effect and wait for a confirmation. */
function ConfirmUserChange({
  change,
  pending,
  onClose,
  onConfirm,
}: {
  change: { user: AdminUser; body: { role?: string; disabled?: boolean } } | null;
  pending: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  const u = change?.user;
  const b = change?.body;
  const title = !u ? "" : b?.disabled ? `Disable ${u.email}?` : b?.role === "admin" ? `Make ${u.email} an admin?` : `Remove admin from ${u.email}?`;
  const effect = !u
    ? ""
    : b?.disabled
      ? `They are signed out everywhere and all ${u.keys === 1 ? "1 API key stops" : `${u.keys} API keys stop`} working at once. Their balance and history are kept; Enable undoes it.`
      : b?.role === "admin"
        ? "They can credit and debit any account, edit upstreams, models and prices, disable users and read the audit log."
        : "They lose the Admin pages at once and are signed out of their current sessions.";
  return (
    <Dialog open={Boolean(change)} onClose={onClose} title={title} description={effect}>
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose}>
          Cancel
        </Button>
        <Button variant={b?.disabled ? "danger" : "primary"} loading={pending} onClick={onConfirm} data-testid="confirm-user-change">
          {b?.disabled ? "Disable user" : b?.role === "admin" ? "Make admin" : "Remove admin"}
        </Button>
      </div>
    </Dialog>
  );
}
