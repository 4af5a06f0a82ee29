"use client";
/**
 * Forgot password, reset password and verify email. The link's token sits after `#` (never sent
 * in a page request, so never in an access log); these forms read it and POST it.
 */
import Link from "next/link";
import { useEffect, useState, type FormEvent } from "react";
import { Button } from "../ui/button";
import { AuthCard } from "./auth-card";
import { FormError, TextField } from "../ui/field";

async function post(path: string, body: unknown): Promise<{ ok: boolean; data: any }> {
  try {
    const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });
    const data = await res.json().catch(() => ({}));
    return { ok: res.ok, data };
  } catch {
    return { ok: false, data: { error: { message: "Could not reach the server. Check your connection and try again." } } };
  }
}

function tokenFromHash(): string {
  if (typeof window === "undefined") return "";
  return new URLSearchParams(window.location.hash.slice(1)).get("token") ?? "";
}

export function ForgotPasswordForm() {
  const [email, setEmail] = useState("");
  const [error, setError] = useState<{ field?: string; message?: string }>({});
  const [sent, setSent] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) return setError({ field: "email", message: "Enter your email address." });
    setBusy(true);
    const r = await post("/api/password-reset", { email: email.trim() });
    setBusy(false);
    if (r.ok) setSent(r.data.message);
    else setError({ field: r.data?.error?.field, message: r.data?.error?.message ?? "Could not send the link. Try again." });
  }

  if (sent)
    return (
      <p className="rounded-md bg-green-50 p-3 text-sm text-green-800" role="status" data-testid="reset-sent">
        {sent}
      </p>
    );
  return (
    <form method="post" onSubmit={submit} noValidate className="space-y-4">
      <FormError message={error.field === "email" ? undefined : error.message} />
      <TextField label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={error.field === "email" ? error.message : undefined} autoFocus />
      <Button type="submit" className="w-full" loading={busy}>
        Email me a link
      </Button>
    </form>
  );
}

/** A dead reset link: said plainly, with the way to a new one next to it. */
function DeadResetLink({ message }: { message: string }) {
  return (
    <AuthCard title="This link no longer works">
      <div className="space-y-5" data-testid="reset-link-dead">
        <p className="text-sm text-zinc-700" role="status">
          {message}
        </p>
        <Link
          href="/forgot-password"
          className="flex h-9 w-full items-center justify-center rounded-md bg-zinc-900 px-4 text-sm font-medium text-white shadow-sm hover:bg-zinc-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-zinc-900"
        >
          Ask for a new link
        </Link>
      </div>
    </AuthCard>
  );
}

const INCOMPLETE = "This link is incomplete: open it again from the email, or ask for a new one.";

/** The reset page: its card too, whose title says whether the link still works. */
export function ResetPassword() {
  const [token, setToken] = useState("");
  // The link is checked (not spent) as the page opens, so a dead one never shows the form.
  const [link, setLink] = useState<{ state: "checking" | "live" } | { state: "dead"; message: string }>({ state: "checking" });
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState<{ field?: string; message?: string }>({});
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const t = tokenFromHash();
    setToken(t);
    // Drop the token from the address bar and history once read.
    if (window.location.hash) window.history.replaceState(null, "", window.location.pathname);
    if (!t) return setLink({ state: "dead", message: INCOMPLETE });
    void post("/api/password-reset/check", { token: t }).then((r) => {
      // Only the server's word that the link is dead hides the form; a network failure leaves it to the submit.
      if (!r.ok && r.data?.error) setLink({ state: "dead", message: r.data.error.message });
      else setLink({ state: "live" });
    });
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (password.length < 8) return setError({ field: "password", message: "Use at least 8 characters." });
    if (password !== confirm) return setError({ field: "confirm", message: "The two passwords differ." });
    setBusy(true);
    const r = await post("/api/password-reset/confirm", { token, password });
    setBusy(false);
    if (r.ok) setDone(r.data.email);
    else setError({ field: r.data?.error?.field, message: r.data?.error?.message ?? "Could not set the password. Try again." });
  }

  if (link.state === "dead") return <DeadResetLink message={link.message} />;
  // Spent in another tab since the page opened.
  if (error.field === "token" && error.message) return <DeadResetLink message={error.message} />;
  return (
    <AuthCard title="Choose a new password" subtitle="Every session signed in with the old one ends.">
      {done ? (
        <div className="space-y-4" data-testid="reset-done">
          <p className="rounded-md bg-green-50 p-3 text-sm text-green-800" role="status">
            Your password is changed, and every session signed in as {done} has ended.
          </p>
          <Link href="/signin" className="block text-center text-sm font-medium text-zinc-900 hover:underline">
            Sign in
          </Link>
        </div>
      ) : link.state === "checking" ? (
        <p className="text-sm text-zinc-600" role="status">
          Checking the link…
        </p>
      ) : (
        <form method="post" onSubmit={submit} noValidate className="space-y-4">
          <FormError message={error.field ? undefined : error.message} />
          <TextField label="New password" type="password" name="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} error={error.field === "password" ? error.message : undefined} hint="At least 8 characters." autoFocus />
          <TextField label="Repeat it" type="password" name="confirm" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} error={error.field === "confirm" ? error.message : undefined} />
          <Button type="submit" className="w-full" loading={busy}>
            Set new password
          </Button>
        </form>
      )}
    </AuthCard>
  );
}

export function VerifyEmail() {
  const [state, setState] = useState<{ status: "working" | "done" | "failed"; message?: string }>({ status: "working" });
  useEffect(() => {
    const token = tokenFromHash();
    if (window.location.hash) window.history.replaceState(null, "", window.location.pathname);
    void post("/api/email-verification/confirm", { token }).then((r) =>
      setState(r.ok ? { status: "done", message: `${r.data.email} is verified.` } : { status: "failed", message: r.data?.error?.message ?? "Could not verify. Try again." }),
    );
  }, []);
  return (
    <div className="space-y-4" data-testid="verify-result" data-state={state.status}>
      {state.status === "working" && <p className="text-sm text-zinc-600">Checking the link…</p>}
      {state.status === "done" && (
        <p className="rounded-md bg-green-50 p-3 text-sm text-green-800" role="status">
          {state.message}
        </p>
      )}
      {state.status === "failed" && <FormError message={state.message} />}
      <Link href="/overview" className="block text-center text-sm font-medium text-zinc-900 hover:underline">
        Go to the console
      </Link>
    </div>
  );
}
