"use client";
/**
 * Organisation → Identity: single sign-on (OIDC, SAML), the default role and group → role
 * mapping, "SSO required", verified domains (gateway admins) and SCIM tokens (shown once).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, fieldError, formError } from "../console/api";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { CopyButton } from "../ui/copy-button";
import { FormError, SelectField, TextAreaField, TextField } from "../ui/field";
import { ErrorState, Loading } from "../ui/states";
import { Mono } from "../ui/table";

type Role = "admin" | "member" | "billing";

interface IdentityAnswer {
  settings: { defaultRole: Role; ssoRequired: boolean; oidcIssuer: string | null; oidcClientId: string | null; oidcClientSecret: "set" | "none"; samlEntryPoint: string | null; samlIdpIssuer: string | null; samlIdpCert: string; groupRoles: Record<string, Role> };
  domains: string[];
  canEditDomains: boolean;
  scimTokens: { id: string; prefix: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null }[];
  endpoints: { oidcRedirectUri: string; samlEntityId: string; samlAcsUrl: string; samlMetadataUrl: string; scimBaseUrl: string };
  instanceOidc: string | null;
}

const PATH = "/api/console/orgs/identity";

function useIdentityMutation<V, R>(fn: (v: V) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => qc.invalidateQueries({ queryKey: ["org", "identity"] }) });
}

/** "Group name = role" lines ⇄ the mapping. */
const linesOf = (m: Record<string, string>) => Object.entries(m).map(([g, r]) => `${g} = ${r}`).join("\n");
function mappingOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const i = line.lastIndexOf("=");
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

function Endpoint({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex items-center justify-between gap-2 text-sm">
      <span className="text-zinc-500">{label}</span>
      <span className="flex items-center gap-2">
        <Mono>{value}</Mono>
        <CopyButton value={value} />
      </span>
    </div>
  );
}

export function IdentityCard() {
  const q = useQuery({ queryKey: ["org", "identity"], queryFn: () => api<IdentityAnswer>(PATH) });
  const save = useIdentityMutation((body: Record<string, unknown>) => api<IdentityAnswer>(PATH, { method: "PATCH", body }));
  const addDomain = useIdentityMutation((domain: string) => api(`${PATH}/domains`, { method: "POST", body: { domain } }));
  const removeDomain = useIdentityMutation((domain: string) => api(`${PATH}/domains?domain=${encodeURIComponent(domain)}`, { method: "DELETE" }));
  const newToken = useIdentityMutation(() => api<{ token: { secret: string } }>(`${PATH}/scim-tokens`, { method: "POST" }));
  const revoke = useIdentityMutation((id: string) => api(`${PATH}/scim-tokens/${encodeURIComponent(id)}`, { method: "DELETE" }));
  const [draft, setDraft] = useState<Record<string, string | boolean> | null>(null);
  const [domain, setDomain] = useState("");
  const [shown, setShown] = useState<string | null>(null);
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorState error={q.error} retry={() => q.refetch()} />;
  const { settings: s, endpoints: e } = q.data;
  const v = draft ?? { defaultRole: s.defaultRole, ssoRequired: s.ssoRequired, oidcIssuer: s.oidcIssuer ?? "", oidcClientId: s.oidcClientId ?? "", oidcClientSecret: "", samlEntryPoint: s.samlEntryPoint ?? "", samlIdpIssuer: s.samlIdpIssuer ?? "", samlIdpCert: s.samlIdpCert, groupRoles: linesOf(s.groupRoles) };
  const set = (k: string) => (ev: { target: { value: string } }) => setDraft({ ...v, [k]: ev.target.value });
  async function submit(ev: FormEvent) {
    ev.preventDefault();
    try {
      await save.mutateAsync({ ...v, groupRoles: mappingOf(String(v.groupRoles)) });
      setDraft(null);
    } catch {
      /* shown below */
    }
  }
  const fields = ["defaultRole", "ssoRequired", "oidcIssuer", "oidcClientId", "oidcClientSecret", "samlEntryPoint", "samlIdpIssuer", "samlIdpCert", "groupRoles"];
  return (
    <Card>
      <CardHeader title="Identity" description="Single sign-on with your identity provider (OIDC or SAML 2.0) and SCIM provisioning. People at the verified domains sign in through it and join with the default role." />
      <CardBody className="space-y-6">
        <div className="space-y-1" data-testid="identity-endpoints">
          <Endpoint label="OIDC redirect URI" value={e.oidcRedirectUri} />
          <Endpoint label="SAML entity id / metadata" value={e.samlEntityId} />
          <Endpoint label="SAML ACS URL" value={e.samlAcsUrl} />
          <Endpoint label="SCIM base URL" value={e.scimBaseUrl} />
        </div>

        <div>
          <h3 className="mb-2 text-sm font-medium">Verified domains</h3>
          {q.data.domains.length ? (
            <ul className="mb-2 space-y-1 text-sm">
              {q.data.domains.map((d) => (
                <li key={d} className="flex items-center gap-2">
                  <Mono>{d}</Mono>
                  {q.data.canEditDomains && (
                    <Button size="sm" variant="secondary" onClick={() => removeDomain.mutate(d)}>
                      Remove
                    </Button>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p className="mb-2 text-sm text-zinc-500">None yet. A gateway admin adds the domains your identity provider speaks for.</p>
          )}
          {q.data.canEditDomains && (
            <form
              className="flex items-end gap-2"
              onSubmit={async (ev) => {
                ev.preventDefault();
                await addDomain.mutateAsync(domain).then(() => setDomain("")).catch(() => undefined);
              }}
            >
              <TextField label="Add domain" value={domain} onChange={(ev) => setDomain(ev.target.value)} placeholder="example.com" error={fieldError(addDomain.error, "domain")} data-testid="identity-domain" />
              <Button type="submit" variant="secondary" loading={addDomain.isPending} disabled={!domain.trim()}>
                Add
              </Button>
            </form>
          )}
        </div>

        <form onSubmit={submit} noValidate className="grid gap-4 sm:grid-cols-2">
          <SelectField label="Default role" value={String(v.defaultRole)} onChange={set("defaultRole")} error={fieldError(save.error, "defaultRole")}>
            <option value="member">Member</option>
            <option value="billing">Billing</option>
            <option value="admin">Admin</option>
          </SelectField>
          <label className="flex items-center gap-2 self-end text-sm">
            <input type="checkbox" checked={Boolean(v.ssoRequired)} onChange={(ev) => setDraft({ ...v, ssoRequired: ev.target.checked })} data-testid="identity-sso-required" />
            SSO required (password sign-in refused to members)
          </label>
          <TextField label="OIDC issuer" value={String(v.oidcIssuer)} onChange={set("oidcIssuer")} optional placeholder="https://login.example.com" error={fieldError(save.error, "oidcIssuer")} />
          <TextField label="OIDC client id" value={String(v.oidcClientId)} onChange={set("oidcClientId")} optional />
          <TextField label="OIDC client secret" type="password" value={String(v.oidcClientSecret)} onChange={set("oidcClientSecret")} optional hint={s.oidcClientSecret === "set" ? "Stored (encrypted). Leave empty to keep it." : undefined} autoComplete="off" />
          <TextField label="SAML SSO URL" value={String(v.samlEntryPoint)} onChange={set("samlEntryPoint")} optional error={fieldError(save.error, "samlEntryPoint")} />
          <TextField label="SAML IdP entity id" value={String(v.samlIdpIssuer)} onChange={set("samlIdpIssuer")} optional />
          <TextAreaField label="SAML signing certificate (PEM)" value={String(v.samlIdpCert)} onChange={set("samlIdpCert")} optional rows={4} error={fieldError(save.error, "samlIdpCert")} />
          <TextAreaField label="SCIM group → role" value={String(v.groupRoles)} onChange={set("groupRoles")} optional rows={3} hint="One per line: Group name = admin | member | billing." error={fieldError(save.error, "groupRoles")} />
          <div className="sm:col-span-2">
            <Button type="submit" loading={save.isPending} disabled={!draft} data-testid="identity-save">
              Save identity settings
            </Button>
            <FormError message={formError(save.error, fields)} />
          </div>
        </form>

        <div>
          <h3 className="mb-2 text-sm font-medium">SCIM tokens</h3>
          <ul className="mb-2 space-y-1 text-sm">
            {q.data.scimTokens.map((t) => (
              <li key={t.id} className="flex items-center gap-2">
                <Mono>{t.prefix}…</Mono>
                <span className="text-zinc-500">{t.revokedAt ? "revoked" : t.lastUsedAt ? `last used ${new Date(t.lastUsedAt).toLocaleString()}` : "never used"}</span>
                {!t.revokedAt && (
                  <Button size="sm" variant="secondary" onClick={() => revoke.mutate(t.id)}>
                    Revoke
                  </Button>
                )}
              </li>
            ))}
          </ul>
          {shown && (
            <div className="mb-2 flex items-center gap-2 text-sm" data-testid="scim-token">
              <Mono>{shown}</Mono>
              <CopyButton value={shown} />
              <span className="text-zinc-500">Shown once: give it to your identity provider now.</span>
            </div>
          )}
          <Button variant="secondary" loading={newToken.isPending} onClick={async () => setShown((await newToken.mutateAsync(undefined)).token.secret)} data-testid="scim-token-create">
            New SCIM token
          </Button>
          <FormError message={formError(newToken.error, [])} />
        </div>
      </CardBody>
    </Card>
  );
}
