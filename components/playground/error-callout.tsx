"use client";
import Link from "next/link";
import type { FriendlyError } from "@/lib/playground/friendly-error";

/** A gateway error in plain words with its next step (e.g. the Billing link on 402). */
export function ErrorCallout({ error, testId = "playground-error" }: { error: FriendlyError; testId?: string }) {
  return (
    <div role="alert" data-testid={testId} data-code={error.code} className="rounded-md border border-red-200 bg-red-50 px-3 py-2.5 text-sm">
      <p className="font-medium text-red-800">{error.title}</p>
      <p className="mt-0.5 text-red-700">{error.detail}</p>
      {error.action && (
        <Link href={error.action.href} className="mt-1.5 inline-block font-medium text-red-800 underline underline-offset-2 hover:text-red-950">
          {error.action.label} →
        </Link>
      )}
    </div>
  );
}
