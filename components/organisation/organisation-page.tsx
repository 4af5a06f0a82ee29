"use client";
import { useSearchParams } from "@/components/navigation";
import { useState, type FormEvent } from "react";
import { can, ROLE_LABELS } from "@/lib/orgs/roles";
import { api, fieldError, formError } from "../console/api";
import { usd, usdProse, when } from "../console/format";
import { useMe } from "../console/hooks";
import type { OrgRole } from "../console/types";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { CopyButton } from "../ui/copy-button";
import { FormError, SelectField, TextField } from "../ui/field";
import { PageHeader } from "../ui/page-header";
import { Empty, ErrorState, Loading } from "../ui/states";
import { Money } from "../ui/money";
import { Mono, Table, Td, Th } from "../ui/table";
import { AuditCard } from "./audit-card";
import { BudgetsCard } from "./budgets-card";
import { IdentityCard } from "./identity-card";
import { ContentLogsCard } from "./content-logs-card";
import {
  useCreateOrg,
  useInvite,
  useInvites,
  useMembers,
  useOrgSettings,
  useRemoveMember,
  useRevokeInvite,
  useUpdateMember,
  useUpdateSettings,
  type MemberView,
} from "./hooks";

const ROLES: OrgRole[] = ["member", "billing", "admin", "owner"];

function CreateOrgCard() {
  const [name, setName] = useState("");
  const create = useCreateOrg();
  async function submit(e: FormEvent) {
    e.preventDefault();
    try {
      await create.mutateAsync(name.trim());
      window.location.assign("/organisation");
    } catch {
      /* shown below */
    }
  }
  return (
    <Card>
      <CardHeader title="New organisation" description="A separate balance, keys and members. You are its owner; switch between organisations in the sidebar." />
      <CardBody>
        <form onSubmit={submit} noValidate className="flex flex-col gap-3 sm:flex-row sm:items-end">
          <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={fieldError(create.error, "name")} className="sm:w-80" data-testid="new-org-name" />
          <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
            Create organisation
          </Button>
        </form>
        <FormError message={formError(create.error, ["name"])} />
      </CardBody>
    </Card>
  );
}

function SettingsCard({ editable }: { editable: boolean }) {
  const q = useOrgSettings();
  const save = useUpdateSettings();
  const [draft, setDraft] = useState<Record<string, string> | null>(null);
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorState error={q.error} retry={() => q.refetch()} />;
  const s = q.data;
  const v = draft ?? { name: s.name, timeZone: s.timeZone, billingName: s.billingName ?? "", billingEmail: s.billingEmail ?? "", billingAddress: s.billingAddress ?? "", billingTaxId: s.billingTaxId ?? "" };
  const set = (k: string) => (e: { target: { value: string } }) => setDraft({ ...v, [k]: e.target.value });
  async function submit(e: FormEvent) {
    e.preventDefault();
    try {
      await save.mutateAsync(v);
      setDraft(null);
    } catch {
      /* shown below */
    }
  }
  const fields = ["name", "timeZone", "billingName", "billingEmail", "billingAddress", "billingTaxId"];
  return (
    <Card>
      <CardHeader title="Settings" description="Monthly caps follow the time zone. Billing details are printed on receipts." />
      <CardBody>
        <form onSubmit={submit} noValidate className="grid gap-4 sm:grid-cols-2">
          <TextField label="Name" value={v.name} onChange={set("name")} disabled={!editable} error={fieldError(save.error, "name")} />
          <TextField label="Time zone" value={v.timeZone} onChange={set("timeZone")} disabled={!editable} error={fieldError(save.error, "timeZone")} hint="IANA name, e.g. Europe/Berlin." />
          <TextField label="Billing name" value={v.billingName} onChange={set("billingName")} disabled={!editable} optional />
          <TextField label="Billing email" type="email" value={v.billingEmail} onChange={set("billingEmail")} disabled={!editable} optional error={fieldError(save.error, "billingEmail")} />
          <TextField label="Billing address" value={v.billingAddress} onChange={set("billingAddress")} disabled={!editable} optional />
          <TextField label="Tax id" value={v.billingTaxId} onChange={set("billingTaxId")} disabled={!editable} optional />
          {editable && (
            <div className="sm:col-span-2">
              <Button type="submit" loading={save.isPending} disabled={!draft}>
                Save settings
              </Button>
              <FormError message={formError(save.error, fields)} />
            </div>
          )}
        </form>
      </CardBody>
    </Card>
  );
}

function CapEditor({ m }: { m: MemberView }) {
  const update = useUpdateMember();
  const [value, setValue] = useState(m.monthlyCapMicroUsd === null ? "" : String(m.monthlyCapMicroUsd / 1_000_000));
  return (
    <form
      className="flex items-start gap-2"
      onSubmit={async (e) => {
        e.preventDefault();
        await update.mutateAsync({ userId: m.userId, body: { monthlyCapUsd: value.trim() } }).catch(() => undefined);
      }}
    >
      <TextField
        label={<span className="sr-only">Monthly cap in USD for {m.email}</span>}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder="No cap"
        inputMode="decimal"
        className="w-28"
        error={update.error ? update.error.message : undefined}
        data-testid={`cap-input-${m.email}`}
      />
      <Button type="submit" size="sm" variant="secondary" loading={update.isPending} className="mt-0.5">
        Save
      </Button>
    </form>
  );
}

function MembersCard({ manage, self, selfRole }: { manage: boolean; self: string; selfRole: OrgRole }) {
  const q = useMembers(true);
  const update = useUpdateMember();
  const remove = useRemoveMember();
  return (
    <Card>
      <CardHeader title="Members" description="Spend counts against a member's monthly cap when their keys are used; a request that would pass it gets HTTP 402." />
      {q.isPending ? (
        <Loading />
      ) : q.isError ? (
        <ErrorState error={q.error} retry={() => q.refetch()} />
      ) : (
        <Table label="Members">
          <thead>
            <tr>
              <Th>Member</Th>
              <Th>Role</Th>
              <Th className="text-right">This month</Th>
              <Th>Monthly cap</Th>
              <Th className="text-right">Active keys</Th>
              {manage && <Th>
                <span className="sr-only">Actions</span>
              </Th>}
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((m) => (
              <tr key={m.userId} data-testid={`member-${m.email}`}>
                <Td label="Member">
                  <span className="font-medium text-zinc-900">{m.name || m.email}</span>
                  {m.name && <span className="block text-xs text-zinc-500">{m.email}</span>}
                </Td>
                <Td label="Role">
                  {manage && m.userId !== self && (selfRole === "owner" || m.role !== "owner") ? (
                    <SelectField
                      label={<span className="sr-only">Role of {m.email}</span>}
                      value={m.role}
                      onChange={(e) => update.mutate({ userId: m.userId, body: { role: e.target.value as OrgRole } })}
                      className="w-32"
                    >
                      {ROLES.filter((r) => r !== "owner" || selfRole === "owner").map((r) => (
                        <option key={r} value={r}>
                          {ROLE_LABELS[r]}
                        </option>
                      ))}
                    </SelectField>
                  ) : (
                    <Badge tone={m.role === "owner" ? "blue" : "neutral"}>{ROLE_LABELS[m.role]}</Badge>
                  )}
                </Td>
                <Td label="This month" className="text-right tabular-nums">
                  <Money micro={m.monthSpentMicroUsd} />
                  {m.heldMicroUsd > 0 && <span className="block text-xs text-zinc-500">{usd(m.heldMicroUsd)} in flight</span>}
                </Td>
                <Td label="Monthly cap">{manage && (selfRole === "owner" || m.role !== "owner") ? <CapEditor m={m} /> : m.monthlyCapMicroUsd === null ? "No cap" : usdProse(m.monthlyCapMicroUsd)}</Td>
                <Td label="Active keys" className="text-right tabular-nums">
                  {m.activeKeys}
                </Td>
                {manage && (
                  <Td>
                    {m.userId !== self && (selfRole === "owner" || m.role !== "owner") && (
                      <Button
                        size="sm"
                        variant="ghost"
                        onClick={() => {
                          if (window.confirm(`Remove ${m.email}? Their keys in this organisation are revoked.`)) remove.mutate(m.userId);
                        }}
                      >
                        Remove
                      </Button>
                    )}
                  </Td>
                )}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <CardBody>
        <FormError message={formError(update.error ?? remove.error, [])} />
      </CardBody>
    </Card>
  );
}

function InvitesCard({ selfRole }: { selfRole: OrgRole }) {
  const q = useInvites(true);
  const invite = useInvite();
  const revoke = useRevokeInvite();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<OrgRole>("member");
  const [cap, setCap] = useState("");
  async function submit(e: FormEvent) {
    e.preventDefault();
    try {
      await invite.mutateAsync({ email: email.trim(), role, monthlyCapUsd: cap.trim() || undefined });
      setEmail("");
    } catch {
      /* shown below */
    }
  }
  const created = invite.data?.invite;
  const pending = q.data?.items.filter((i) => i.state === "pending") ?? [];
  return (
    <Card>
      <CardHeader
        title="Invite someone"
        description={`They get a link that works once, for 7 days, for the address you enter.${q.data && !q.data.emailAvailable ? " This gateway sends no email: copy the link and pass it on." : ""}`}
      />
      <CardBody>
        <form onSubmit={submit} noValidate className="grid gap-4 lg:grid-cols-[2fr_1fr_1fr_auto] lg:items-start">
          <TextField label="Email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} error={fieldError(invite.error, "email")} data-testid="invite-email" />
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as OrgRole)} error={fieldError(invite.error, "role")} data-testid="invite-role">
            {ROLES.filter((r) => r !== "owner" || selfRole === "owner").map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </SelectField>
          <TextField label="Monthly cap (USD)" value={cap} onChange={(e) => setCap(e.target.value)} optional placeholder="No cap" inputMode="decimal" error={fieldError(invite.error, "monthlyCapUsd")} data-testid="invite-cap" />
          <Button type="submit" loading={invite.isPending} disabled={!email.trim()} className="lg:mt-6">
            Send invite
          </Button>
        </form>
        <FormError message={formError(invite.error, ["email", "role", "monthlyCapUsd"])} />
        {created && (
          <div role="status" className="mt-4 rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
            {created.emailed ? (
              <>Invitation emailed to {created.email}.</>
            ) : (
              <div className="space-y-2">
                <p>Invitation for {created.email} created. Pass this link on (it works once):</p>
                <div className="flex items-center gap-2">
                  <Mono className="break-all" >
                    <span data-testid="invite-link">{created.url}</span>
                  </Mono>
                  <CopyButton value={created.url ?? ""} label="Copy link" />
                </div>
              </div>
            )}
          </div>
        )}
      </CardBody>
      {pending.length > 0 && (
        <Table label="Pending invitations">
          <thead>
            <tr>
              <Th>Email</Th>
              <Th>Role</Th>
              <Th>Expires</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {pending.map((i) => (
              <tr key={i.id}>
                <Td label="Email">{i.email}</Td>
                <Td label="Role">{ROLE_LABELS[i.role]}</Td>
                <Td label="Expires">{when(i.expiresAt)}</Td>
                <Td>
                  <Button size="sm" variant="ghost" onClick={() => revoke.mutate(i.id)}>
                    Withdraw
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

function LeaveCard({ self }: { self: string }) {
  const remove = useRemoveMember();
  return (
    <Card>
      <CardHeader title="Leave this organisation" description="Your keys in it are revoked. You keep your personal organisation." />
      <CardBody>
        <Button
          variant="danger"
          loading={remove.isPending}
          onClick={async () => {
            if (!window.confirm("Leave this organisation?")) return;
            try {
              await remove.mutateAsync(self);
              window.location.assign("/overview");
            } catch {
              /* shown below */
            }
          }}
        >
          Leave
        </Button>
        <FormError message={formError(remove.error, [])} />
      </CardBody>
    </Card>
  );
}

function DeleteCard() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  return (
    <Card>
      <CardHeader title="Delete this organisation" description="Every member loses access and every key is revoked; the ledger is kept. Only possible with no balance left." />
      <CardBody>
        <Button
          variant="danger"
          loading={busy}
          onClick={async () => {
            if (!window.confirm("Delete this organisation for everyone?")) return;
            setBusy(true);
            setError(undefined);
            try {
              await api("/api/console/orgs/current", { method: "DELETE" });
              window.location.assign("/overview");
            } catch (err) {
              setError(err instanceof Error ? err.message : "Could not delete the organisation.");
              setBusy(false);
            }
          }}
        >
          Delete organisation
        </Button>
        <FormError message={error} />
      </CardBody>
    </Card>
  );
}

export function OrganisationPage() {
  const me = useMe();
  const creating = useSearchParams().get("new") === "1";
  if (me.isPending) return <Loading />;
  if (me.isError) return <ErrorState error={me.error} retry={() => me.refetch()} />;
  const { org, user } = me.data;
  const role = org.role;
  return (
    <>
      <PageHeader
        title={org.personal ? `${org.name} (personal)` : org.name}
        description={
          <>
            Your role: <Badge tone="blue">{ROLE_LABELS[role]}</Badge>
          </>
        }
      />
      <div className="space-y-6">
        {creating && <CreateOrgCard />}
        {can(role, "members") || can(role, "usage.all") ? (
          <MembersCard manage={can(role, "members")} self={user.id} selfRole={role} />
        ) : (
          <Empty title="Members">Your role shows your own keys and usage only.</Empty>
        )}
        {can(role, "members") && <InvitesCard selfRole={role} />}
        <BudgetsCard />
        <SettingsCard editable={can(role, "settings")} />
        {!org.personal && can(role, "settings") && <IdentityCard />}
        {can(role, "settings") && <ContentLogsCard />}
        {can(role, "settings") && <AuditCard />}
        {!creating && <CreateOrgCard />}
        {!org.personal && role !== "owner" && <LeaveCard self={user.id} />}
        {!org.personal && can(role, "ownership") && <DeleteCard />}
      </div>
    </>
  );
}
