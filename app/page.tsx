import { cookies } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import { userFromCookies } from "@/lib/auth/session";

export const dynamic = "force-dynamic";

const protocols = [
  ["OpenAI Chat Completions", "POST /v1/chat/completions"],
  ["OpenAI Responses", "POST /v1/responses"],
  ["Anthropic Messages", "POST /v1/messages"],
  ["Gemini generateContent", "POST /v1beta/models/{model}:generateContent"],
];

export default async function Home() {
  const jar = await cookies();
  // Signed-in visitors go straight to the console.
  if (await userFromCookies(jar.getAll().map((c) => `${c.name}=${c.value}`).join("; "))) redirect("/overview");
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Generation Gateway</h1>
      <p className="mt-4 text-lg text-zinc-600">
        One prepaid API key for text generation, embeddings, images and video. Point the official OpenAI,
        Anthropic or Google SDK at this server; every request is billed in USD against your balance.
      </p>
      <div className="mt-8 flex gap-3">
        <Link href="/signin" className="rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white">
          Sign in
        </Link>
        <Link href="/signup" className="rounded-md border border-zinc-300 px-4 py-2 text-sm font-medium">
          Create an account
        </Link>
      </div>
      <h2 className="mt-12 text-sm font-semibold uppercase tracking-wide text-zinc-500">Text protocols</h2>
      <ul className="mt-3 divide-y divide-zinc-200 rounded-md border border-zinc-200">
        {protocols.map(([name, route]) => (
          <li key={name} className="flex justify-between px-4 py-3 text-sm">
            <span>{name}</span>
            <code className="text-zinc-500">{route}</code>
          </li>
        ))}
      </ul>
      <p className="mt-6 text-sm text-zinc-500">
        Also: <code>POST /v1/embeddings</code>, <code>POST /v1/images/generations</code>, <code>POST /v1/videos</code> with
        signed webhooks, and <code>GET /v1/models</code>.
      </p>
    </main>
  );
}
