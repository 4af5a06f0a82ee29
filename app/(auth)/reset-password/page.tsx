import { ResetPassword } from "@/components/auth/email-link-forms";

export const metadata = { title: "Choose a new password · Generation Gateway" };

export default function ResetPasswordPage() {
  return <ResetPassword />;
}
