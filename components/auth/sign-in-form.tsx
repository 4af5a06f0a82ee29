"use client";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "../ui/button";
import { FormError, TextField } from "../ui/field";

const MESSAGES: Record<string, string> = {
  CredentialsSignin: "Wrong email or password.",
  RateLimited: "Too many attempts. Wait a minute and try again.",
  AccountDisabled: "This account is disabled. Contact your administrator.",
  OAuthAccountNotLinked: "This email is already used by another sign-in method.",
  AccessDenied: "Sign-in was refused.",
  SignupClosed: "There is no account for this sign-in, and new accounts are made by an administrator here.",
  SsoRequired: "Your organisation requires single sign-on: use \u201cSign in with SSO\u201d below.",
  SsoNotConfigured: "Single sign-on is not set up for this address. Ask your administrator.",
  SsoUnavailable: "The identity provider could not be reached. Try again in a moment.",
  SsoExpired: "The sign-in took too long or was started in another browser. Start again.",
  SsoRefused: "The identity provider's answer could not be accepted. Start again or ask your administrator.",
  SsoNoEmail: "The identity provider did not give an email address.",
  SsoEmailUnverified: "The identity provider has not verified your email address.",
  SsoWrongDomain: "Your organisation's identity provider cannot sign in this email address.",
};

export function signInMessage(code: string | null | undefined): string | undefined {
  if (!code) return undefined;
  return MESSAGES[code] ?? "Could not sign in. Try again.";
}

export function SignInForm({ initialError, callbackUrl, emailAvailable = false }: { initialError?: string; callbackUrl: string; emailAvailable?: boolean }) {
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<{ email?: string; password?: string; form?: string }>({ form: signInMessage(initialError) });
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const next: typeof errors = {};
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) next.email = "Enter your email address.";
    if (!password) next.password = "Enter your password.";
    setErrors(next);
    if (next.email || next.password) return;
    setBusy(true);
    const res = await signIn("credentials", { email: email.trim(), password, redirect: false, callbackUrl });
    setBusy(false);
    if (!res || res.error) {
      setErrors({ form: signInMessage(res?.error ?? "CredentialsSignin") });
      return;
    }
    router.replace(callbackUrl);
    router.refresh();
  }

  return (
    // method="post": a click before hydration lets the browser submit the form itself, and a GET
    // would put the password in the URL (history, proxies' logs). A POST just renders the page again.
    <form method="post" onSubmit={submit} noValidate className="space-y-4">
      <FormError message={errors.form} />
      <TextField label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.email} autoFocus />
      <TextField
        label="Password"
        type="password"
        name="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={errors.password}
      />
      <Button type="submit" className="w-full" loading={busy}>
        Sign in
      </Button>
      {emailAvailable ? (
        <a href="/forgot-password" className="block text-sm font-medium text-zinc-700 hover:text-zinc-900" data-testid="forgot-password">
          Forgot your password?
        </a>
      ) : (
      /* Without SMTP_URL (in production) no email is sent, so a reset goes through the operator. */
      <details className="text-sm text-zinc-600" data-testid="forgot-password">
        <summary className="cursor-pointer font-medium text-zinc-700 hover:text-zinc-900">Forgot your password?</summary>
        <p className="mt-2">
          This gateway does not send email. Ask its administrator to set a new password: on the server, in the gateway&apos;s folder and with the server&apos;s{" "}
          <code className="font-mono text-xs">DATABASE_URL</code>, they run
        </p>
        <pre className="mt-2 whitespace-pre-wrap break-all rounded-md bg-zinc-950 p-2 text-xs text-zinc-100">
          <code>{`npm run admin -- user set-password --email ${email.trim() || "you@example.com"} --password '…'`}</code>
        </pre>
      </details>
      )}
    </form>
  );
}
