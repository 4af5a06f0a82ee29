import { AuthCard } from "@/components/auth/auth-card";
import { VerifyEmail } from "@/components/auth/email-link-forms";

export const metadata = { title: "Verify email · Generation Gateway" };

export default function VerifyEmailPage() {
  return (
    <AuthCard title="Verify your email">
      <VerifyEmail />
    </AuthCard>
  );
}
