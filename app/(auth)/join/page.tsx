import Link from "next/link";
import { cookies } from "next/headers";
import { AuthCard } from "@/components/auth/auth-card";
import { AcceptInvite } from "@/components/organisation/accept-invite";
import { getDb } from "@/db/client";
import { userFromCookies } from "@/lib/auth/session";
import { describeInvite } from "@/lib/orgs/invites";
import { ROLE_LABELS } from "@/lib/orgs/roles";

export const dynamic = "force-dynamic";
export const metadata = { title: "Join an organisation · Generation Gateway" };

/**
 * An organisation invitation's link. Shows what it is for; a signed-in user with the invited
 * address accepts with a button (a POST: a mail scanner's GET never spends the link); anyone
 * else is sent to sign in or create an account and comes back here.
 */
export default async function JoinPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  const token = sp.token ?? "";
  const described = await describeInvite(await getDb(), token);
  if (!described.ok) {
    return (
      <AuthCard title="Invitation">
        <p role="alert" className="text-sm text-zinc-700">
          {described.error}
        </p>
      </AuthCard>
    );
  }
  const invite = described.value;
  const jar = await cookies();
  const user = await userFromCookies(jar.getAll().map((c) => `${c.name}=${c.value}`).join("; "));
  const here = `/join?${new URLSearchParams({ token }).toString()}`;
  // SIGNUP=invite: an admin's pending invitation is itself the sign-up invite (lib/orgs/invites.ts signupTicket).
  const signupHref = `/signup?${new URLSearchParams({ callbackUrl: here, ...(invite.opensSignup ? { invite: token } : {}) }).toString()}`;
  return (
    <AuthCard title={`Join ${invite.orgName}`} subtitle={`You are invited as ${ROLE_LABELS[invite.role].toLowerCase()} (${invite.email}).`}>
      {user ? (
        user.email === invite.email ? (
          <AcceptInvite token={token} orgName={invite.orgName} />
        ) : (
          <p role="alert" className="text-sm text-zinc-700">
            You are signed in as {user.email}, but this invitation is for {invite.email}. Sign out and sign in with that address to accept it.
          </p>
        )
      ) : (
        <div className="space-y-3 text-sm text-zinc-700">
          <p>Sign in with {invite.email} to accept, or create an account with that address.</p>
          <div className="flex gap-3">
            <Link href={`/signin?callbackUrl=${encodeURIComponent(here)}`} className="rounded-md bg-zinc-900 px-4 py-2 font-medium text-white hover:bg-zinc-700" data-testid="join-signin">
              Sign in
            </Link>
            <Link href={signupHref} className="rounded-md border border-zinc-300 px-4 py-2 font-medium text-zinc-900 hover:bg-zinc-50" data-testid="join-signup">
              Create an account
            </Link>
          </div>
        </div>
      )}
    </AuthCard>
  );
}
