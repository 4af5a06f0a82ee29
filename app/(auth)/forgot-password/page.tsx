import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-card";
import { ForgotPasswordForm } from "@/components/auth/email-link-forms";
import { emailAvailable } from "@/lib/email";

export const dynamic = "force-dynamic";
export const metadata = { title: "Forgot password · Generation Gateway" };

export default function ForgotPasswordPage() {
  const footer = (
    <Link href="/signin" className="font-medium text-zinc-900 hover:underline">
      Back to sign in
    </Link>
  );
  if (!emailAvailable())
    return (
      <AuthCard title="Forgot your password?" footer={footer}>
        <p className="text-sm text-zinc-600" data-testid="email-off">
          This gateway does not send email (its operator has not set <code className="font-mono text-xs">SMTP_URL</code>). Ask its administrator to set a new password with{" "}
          <code className="font-mono text-xs">npm run admin -- user set-password</code>.
        </p>
      </AuthCard>
    );
  return (
    <AuthCard title="Forgot your password?" subtitle="We email you a link to choose a new one." footer={footer}>
      <ForgotPasswordForm />
    </AuthCard>
  );
}
