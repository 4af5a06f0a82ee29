"use client";
/**
 * "Sign in with SSO": the email's domain picks the organisation's identity provider (server
 * side, /api/auth/sso/start). Submitting navigates instead of posting the form: the page's CSP
 * (`form-action 'self'`) would stop a form submission's redirect to the IdP's origin. The
 * instance-wide OIDC provider (OIDC_NAME) gets its own link.
 */
import type { FormEvent } from "react";

function go(e: FormEvent<HTMLFormElement>) {
  e.preventDefault();
  const q = new URLSearchParams(new FormData(e.currentTarget) as unknown as Record<string, string>);
  window.location.assign(`/api/auth/sso/start?${q}`);
}

export function SsoSignIn({ instanceName, byEmail, callbackUrl }: { instanceName: string | null; byEmail: boolean; callbackUrl: string }) {
  return (
    <div className="mt-6 space-y-2">
      <div className="relative mb-4 text-center text-xs text-zinc-500">
        <span className="relative z-10 bg-white px-2">or single sign-on</span>
        <div className="absolute inset-x-0 top-1/2 border-t border-zinc-200" />
      </div>
      {instanceName && (
        <a
          href={`/api/auth/sso/oidc/start?callbackUrl=${encodeURIComponent(callbackUrl)}`}
          className="block w-full rounded-md border border-zinc-300 px-3 py-2 text-center text-sm font-medium hover:bg-zinc-50"
          data-testid="sso-instance"
        >
          Continue with {instanceName}
        </a>
      )}
      {byEmail && (
        <form action="/api/auth/sso/start" method="get" onSubmit={go} className="flex gap-2">
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <label className="sr-only" htmlFor="sso-email">
            Work email
          </label>
          <input id="sso-email" name="email" type="email" required placeholder="you@company.com" className="min-w-0 flex-1 rounded-md border border-zinc-300 px-3 py-2 text-sm" data-testid="sso-email" />
          <button type="submit" className="rounded-md border border-zinc-300 px-3 py-2 text-sm font-medium hover:bg-zinc-50" data-testid="sso-submit">
            Sign in with SSO
          </button>
        </form>
      )}
    </div>
  );
}
