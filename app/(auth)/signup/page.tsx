import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-card";
import { OAuthButtons } from "@/components/auth/oauth-buttons";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { SIGNUP_CLOSED_MESSAGE } from "@/lib/auth/signup";
import { env } from "@/lib/env";
import { enabledOAuthProviders } from "../providers";

export const dynamic = "force-dynamic";
export const metadata = { title: "Create an account · Generation Gateway" };

export default function SignUpPage() {
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
      {env().SIGNUP === "closed" ? (
        <p role="status" className="text-sm text-zinc-700">
          {SIGNUP_CLOSED_MESSAGE}
        </p>
      ) : (
        <>
          <SignUpForm />
          <OAuthButtons providers={enabledOAuthProviders()} callbackUrl="/overview" />
        </>
      )}
    </AuthCard>
  );
}
