"use client";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { api, ApiError } from "../console/api";
import { Button } from "../ui/button";
import { FormError, TextField } from "../ui/field";

/**
 * `invite`: the token of an invite link (SIGNUP=invite), sent along with the form. `next`: where
 * to go once signed in (an organisation invitation's accept page), else the Overview.
 */
export function SignUpForm({ invite, next: after }: { invite?: string; next?: string } = {}) {
  const router = useRouter();
  const [form, setForm] = useState({ name: "", email: "", password: "" });
  const [errors, setErrors] = useState<{ name?: string; email?: string; password?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [k]: e.target.value });

  async function submit(e: FormEvent) {
    e.preventDefault();
    const next: typeof errors = {};
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(form.email.trim())) next.email = "Enter a valid email address.";
    if (form.password.length < 8) next.password = "Use at least 8 characters.";
    if (form.name.length > 100) next.name = "Use at most 100 characters.";
    setErrors(next);
    if (Object.keys(next).length) return;
    setBusy(true);
    try {
      await api("/api/signup", { method: "POST", body: { email: form.email.trim(), password: form.password, name: form.name.trim() || undefined, invite } });
      const res = await signIn("credentials", { email: form.email.trim(), password: form.password, redirect: false, callbackUrl: "/overview" });
      if (!res || res.error) throw new Error("Your account was created, but signing in failed. Try signing in.");
      router.replace(after ?? "/overview?welcome=1");
      router.refresh();
    } catch (err) {
      if (err instanceof ApiError && err.field && err.field in form) setErrors({ [err.field]: err.message });
      else setErrors({ form: err instanceof Error ? err.message : "Could not create the account." });
      setBusy(false);
    }
  }

  return (
    <form method="post" onSubmit={submit} noValidate className="space-y-4">
      <FormError message={errors.form} />
      <TextField label="Name" name="name" autoComplete="name" value={form.name} onChange={set("name")} error={errors.name} optional />
      <TextField label="Email" type="email" name="email" autoComplete="email" value={form.email} onChange={set("email")} error={errors.email} />
      <TextField
        label="Password"
        type="password"
        name="password"
        autoComplete="new-password"
        value={form.password}
        onChange={set("password")}
        error={errors.password}
        hint="At least 8 characters."
      />
      <Button type="submit" className="w-full" loading={busy}>
        Create account
      </Button>
    </form>
  );
}
