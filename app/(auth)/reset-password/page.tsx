import { AuthCard } from "@/components/auth/auth-card";
import { ResetPasswordForm } from "@/components/auth/email-link-forms";

export const metadata = { title: "Choose a new password · Generation Gateway" };

export default function ResetPasswordPage() {
  return (
    <AuthCard title="Choose a new password" subtitle="Every session signed in with the old one ends.">
      <ResetPasswordForm />
    </AuthCard>
  );
}
