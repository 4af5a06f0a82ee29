import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-card";
import { OAuthButtons } from "@/components/auth/oauth-buttons";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { safeCallback } from "@/lib/auth/callback";
import { SIGNUP_CLOSED_MESSAGE, SIGNUP_INVITE_MESSAGE } from "@/lib/console/signup";
import { env } from "@/lib/env";
import { enabledOAuthProviders } from "../providers";

export const dynamic = "force-dynamic";
export const metadata = { title: "Create an account · Generation Gateway" };

export default async function SignUpPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const mode = env().SIGNUP;
  const sp = await searchParams;
  const invite = mode === "invite" ? sp.invite : undefined;
  // An organisation invitation sends people here and back to its accept page.
  const next = sp.callbackUrl ? safeCallback(sp.callbackUrl, new URL(env().publicBaseUrl).origin) : undefined;
  const closedMessage = mode === "closed" ? SIGNUP_CLOSED_MESSAGE : mode === "invite" && !invite ? SIGNUP_INVITE_MESSAGE : null;
  return (
    <AuthCard
      title="Create your account"
      subtitle="One prepaid key for text, embeddings, images and video."
      footer={
        <>
          Already have an account?{" "}
          <Link href="/signin" className="font-medium text-zinc-900 hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      {closedMessage ? (
        <p role="status" className="text-sm text-zinc-700">
          {closedMessage}
        </p>
      ) : (
        <>
          <SignUpForm invite={invite} next={next} />
          {/* New accounts through OAuth need open sign-up (an invite is spent by the form only). */}
          {mode === "open" && <OAuthButtons providers={enabledOAuthProviders()} callbackUrl="/overview" />}
        </>
      )}
    </AuthCard>
  );
}
