"use client";
import Link from "next/link";
import { useState } from "react";
import { num, usd } from "../console/format";
import { useKeys, useMe } from "../console/hooks";
import type { KeyView } from "../console/types";
import { Badge } from "../ui/badge";
import { Ago, Time } from "../ui/money";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { PageHeader } from "../ui/page-header";
import { Empty, QueryState } from "../ui/states";
import { Mono, Table, Td, Th } from "../ui/table";
import { can } from "@/lib/orgs/roles";
import { CreateKeyDialog } from "./create-key-dialog";
import { KeyContentLog } from "./key-content-log";
import { RevokeKeyDialog } from "./revoke-key-dialog";
import { RollKeyDialog } from "./roll-key-dialog";

function StatusCell({ k }: { k: KeyView }) {
  if (k.status === "revoked") return <Badge tone="red">Revoked</Badge>;
  if (k.status === "expired") return <Badge tone="amber">Expired</Badge>;
  return (
    <span className="flex flex-col items-start gap-1">
      <Badge tone="green">Active</Badge>
      {k.expiresAt && <span className="text-[11px] text-zinc-500">expires <Time iso={k.expiresAt} /></span>}
      {k.previousExpiresAt && <span className="text-[11px] text-zinc-500">old secret until <Time iso={k.previousExpiresAt} /></span>}
    </span>
  );
}

export function KeysPage() {
  const keys = useKeys();
  const me = useMe();
  const [creating, setCreating] = useState(false);
  const [rolling, setRolling] = useState<KeyView | null>(null);
  const [editing, setEditing] = useState<KeyView | null>(null);
  const [revoking, setRevoking] = useState<KeyView | null>(null);
  const [showRevoked, setShowRevoked] = useState(false);

  return (
    <>
      <PageHeader
        title="API Keys"
        description="Keys authenticate requests to every route of the API. A key is shown once, when it is created or rolled; we store only its hash."
        actions={
          <Button onClick={() => setCreating(true)} data-testid="create-key-button">
            Create key
          </Button>
        }
      />
      <Card>
        <QueryState
          query={keys}
          empty={(d) =>
            d.items.length === 0 ? (
              <Empty title="No API keys yet" action={<Button onClick={() => setCreating(true)}>Create your first key</Button>}>
                Create a key, then call <code className="font-mono text-xs">/v1/models</code> with it. The <Link className="underline" href="/docs">Docs</Link> have examples for curl and the official SDKs.
              </Empty>
            ) : null
          }
        >
          {(d) => {
            const visible = d.items.filter((k) => showRevoked || k.status !== "revoked");
            const revokedCount = d.items.length - d.items.filter((k) => k.status !== "revoked").length;
            return (
              <>
                <Table label="API keys">
                  <thead>
                    <tr>
                      <Th>Name</Th>
                      <Th>Key</Th>
                      <Th>Models</Th>
                      <Th className="text-right">Spend · limit</Th>
                      <Th>Activity · 30 d</Th>
                      <Th>Status</Th>
                      <Th sticky>
                        <span className="sr-only">Actions</span>
                      </Th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-zinc-100 bg-white">
                    {visible.map((k) => (
                      <tr key={k.id} data-testid="key-row" data-key-id={k.id} className={k.status === "revoked" ? "opacity-60" : undefined}>
                        <Td className="font-medium text-zinc-900">
                          {k.name || <span className="text-zinc-500">Untitled</span>}
                          <span className="block font-mono text-[11px] font-normal text-zinc-500">{k.id}</span>
                          {k.createdByEmail && k.createdByUserId !== me.data?.user.id && <span className="block text-xs font-normal text-zinc-500">by {k.createdByEmail}</span>}
                        </Td>
                        <Td>
                          <Mono>
                            {k.prefix}…{k.last4}
                          </Mono>
                        </Td>
                        <Td className="max-w-56 truncate" title={k.allowedModels?.join(", ")}>
                          {k.allowedModels ? <span className="text-xs">{k.allowedModels.length === 1 ? <Mono>{k.allowedModels[0]}</Mono> : `${k.allowedModels.length} models`}</span> : <span className="text-xs text-zinc-500">All models</span>}
                        </Td>
                        <Td className="text-right tabular-nums">
                          {usd(k.spentMicroUsd)}
                          <span className="text-zinc-500"> / {k.limitMicroUsd === null ? "∞" : usd(k.limitMicroUsd)}</span>
                          {k.rpm !== null && <span className="block text-[11px] text-zinc-500">{num(k.rpm)} rpm</span>}
                        </Td>
                        <Td>
                          <Link href={`/usage?keyId=${encodeURIComponent(k.id)}`} className="hover:underline" title="This key's requests in Usage">
                            <span className="tabular-nums">{num(k.requests30d)}</span> {k.requests30d === 1 ? "request" : "requests"}
                          </Link>
                          <span className="block text-[11px] text-zinc-500" data-testid="key-last-used">
                            last used <Ago iso={k.lastUsedAt} />
                          </span>
                        </Td>
                        <Td>
                          <StatusCell k={k} />
                          {me.data && can(me.data.org.role, "settings") && k.status === "active" && <KeyContentLog k={k} />}
                        </Td>
                        <Td sticky className="text-right">
                          {k.status === "active" && (
                            <span className="inline-flex gap-1">
                              <Button variant="ghost" size="sm" onClick={() => setEditing(k)} aria-label={`Edit ${k.name}`}>
                                Edit
                              </Button>
                              <Button variant="ghost" size="sm" onClick={() => setRolling(k)} aria-label={`Roll ${k.name}`}>
                                Roll
                              </Button>
                              <Button variant="ghost" size="sm" className="text-red-600 hover:bg-red-50" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`} data-testid="revoke-key">
                                Revoke
                              </Button>
                            </span>
                          )}
                        </Td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
                {revokedCount > 0 && (
                  <div className="border-t border-zinc-100 px-4 py-2.5">
                    <button type="button" className="text-xs font-medium text-zinc-500 hover:text-zinc-900" onClick={() => setShowRevoked(!showRevoked)}>
                      {showRevoked ? "Hide" : "Show"} {revokedCount} revoked key{revokedCount === 1 ? "" : "s"}
                    </button>
                  </div>
                )}
              </>
            );
          }}
        </QueryState>
      </Card>
      <CreateKeyDialog open={creating} onClose={() => setCreating(false)} />
      <CreateKeyDialog open={Boolean(editing)} editing={editing} onClose={() => setEditing(null)} />
      <RollKeyDialog target={rolling} onClose={() => setRolling(null)} />
      <RevokeKeyDialog target={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}
