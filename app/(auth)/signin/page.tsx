import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-card";
import { OAuthButtons } from "@/components/auth/oauth-buttons";
import { safeCallback } from "@/lib/auth/callback";
import { SignInForm } from "@/components/auth/sign-in-form";
import { emailAvailable } from "@/lib/email";
import { env } from "@/lib/env";
import { SsoSignIn } from "@/components/auth/sso-sign-in";
import { enabledOAuthProviders, ssoOptions } from "../providers";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Generation Gateway" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  const callbackUrl = safeCallback(sp.callbackUrl, new URL(env().publicBaseUrl).origin);
  const sso = await ssoOptions();
  return (
    <AuthCard
      title="Sign in"
      subtitle="Welcome back. Sign in to manage keys, usage and billing."
      footer={
        <>
          New here?{" "}
          <Link href="/signup" className="font-medium text-zinc-900 hover:underline">
            Create an account
          </Link>
        </>
      }
    >
      <SignInForm initialError={sp.error} callbackUrl={callbackUrl} emailAvailable={emailAvailable()} />
      <OAuthButtons providers={enabledOAuthProviders()} callbackUrl={callbackUrl} />
      {sso && <SsoSignIn instanceName={sso.instanceName} byEmail={sso.byEmail} callbackUrl={callbackUrl} />}
    </AuthCard>
  );
}
