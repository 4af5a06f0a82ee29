"use client";
import { signIn } from "next-auth/react";
import { Button } from "../ui/button";

const NAMES: Record<string, string> = { github: "GitHub", google: "Google" };

export function OAuthButtons({ providers, callbackUrl }: { providers: string[]; callbackUrl: string }) {
  if (!providers.length) return null;
  return (
    <div className="mt-6">
      <div className="relative mb-4 text-center text-xs text-zinc-500">
        <span className="relative z-10 bg-white px-2">or</span>
        <div className="absolute inset-x-0 top-1/2 border-t border-zinc-200" />
      </div>
      <div className="space-y-2">
        {providers.map((p) => (
          <Button key={p} variant="secondary" className="w-full" onClick={() => signIn(p, { callbackUrl })}>
            Continue with {NAMES[p] ?? p}
          </Button>
        ))}
      </div>
    </div>
  );
}
