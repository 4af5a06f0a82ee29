"use client";
import Link from "next/link";
import { useState } from "react";
import { CodeBlock } from "../ui/copy-button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { cx } from "../ui/cx";
import { PageHeader } from "../ui/page-header";
import { ModelsCard } from "./models-card";
import { quickstart, videoSnippet, WEBHOOK_VERIFY } from "./snippets";
import { tabListKeys } from "../ui/tabs";

const ERRORS: [string, string, string][] = [
  ["401", "invalid_token", "Key missing, wrong, revoked or expired. Check the Authorization header."],
  ["402", "insufficient_user_quota", "Balance too low for this request. Add balance on the Billing page."],
  ["402", "key_limit_exceeded", "The key reached its own spend limit. Raise it or use another key."],
  ["404", "model_not_found", "The model is unknown or not allowed for this key. Use an id from /v1/models."],
  ["429", "rate_limit_exceeded", "Too many requests per minute. Retry after the Retry-After header."],
  ["502 / 504", "upstream_error / upstream_timeout", "The provider failed. Retry with backoff; failed requests are not charged."],
];

export function DocsPage({ baseUrl }: { baseUrl: string }) {
  const snippets = quickstart(baseUrl);
  const [tab, setTab] = useState(snippets[0]!.id);
  const active = snippets.find((s) => s.id === tab)!;
  return (
    <>
      <PageHeader title="Docs" description="Point any official SDK at this gateway with your API key. Every request is billed in USD against your balance." />
      <div className="space-y-6">
        <Card>
          <CardHeader title="Base URL" />
          <CardBody className="grid gap-3 text-sm sm:grid-cols-2">
            <div>
              <p className="text-xs font-medium uppercase tracking-wide text-zinc-500">OpenAI-compatible</p>
              <code className="mt-1 block font-mono text-sm text-zinc-900" data-testid="docs-base-url">
                {baseUrl}/v1
              </code>
            </div>
            <div>
              <p className="text-xs font-medium uppercase tracking-wide text-zinc-500">Anthropic and Google SDKs</p>
              <code className="mt-1 block font-mono text-sm text-zinc-900">{baseUrl}</code>
            </div>
            <p className="text-zinc-500 sm:col-span-2">
              Send your key as <code className="font-mono text-xs">Authorization: Bearer sk-…</code> (also <code className="font-mono text-xs">x-api-key</code> on /v1/messages and{" "}
              <code className="font-mono text-xs">?key=</code> or <code className="font-mono text-xs">x-goog-api-key</code> on /v1beta). Create keys under{" "}
              <Link href="/keys" className="underline">
                API Keys
              </Link>
              .
            </p>
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="Quickstart" description="The same chat request over four protocols." />
          <CardBody>
            <div role="tablist" onKeyDown={tabListKeys} aria-label="Client" className="mb-4 flex flex-wrap gap-1 border-b border-zinc-200">
              {snippets.map((s) => (
                <button
                  key={s.id}
                  role="tab"
                  type="button"
                  id={`tab-${s.id}`}
                  aria-selected={tab === s.id}
              tabIndex={tab === s.id ? 0 : -1}
                  aria-controls={`panel-${s.id}`}
                  onClick={() => setTab(s.id)}
                  className={cx("-mb-px border-b-2 px-3 py-2 text-sm font-medium", tab === s.id ? "border-zinc-900 text-zinc-900" : "border-transparent text-zinc-500 hover:text-zinc-800")}
                >
                  {s.label}
                </button>
              ))}
            </div>
            <div role="tabpanel" id={`panel-${active.id}`} aria-labelledby={`tab-${active.id}`}>
              <CodeBlock code={active.code} label={active.lang} />
            </div>
          </CardBody>
        </Card>
        <ModelsCard />
        <Card>
          <CardHeader title="Video tasks and webhooks" description="Submit, then poll or receive a signed webhook when the task is completed or failed." />
          <CardBody className="space-y-4">
            <CodeBlock code={videoSnippet(baseUrl)} label="bash" />
            <div>
              <h3 className="mb-2 text-sm font-semibold text-zinc-900">Verifying webhook signatures</h3>
              <p className="mb-3 text-sm text-zinc-500">
                With a <code className="font-mono text-xs">webhook_secret</code>, every delivery carries <code className="font-mono text-xs">X-Shim-Signature</code>. Reject timestamps older
                than five minutes. A delivery may arrive twice: deduplicate on <code className="font-mono text-xs">id</code> plus <code className="font-mono text-xs">status</code>. Retries
                follow 10 s, 30 s, 60 s, 5 min, 30 min and 2 h; a 4xx answer stops them.
              </p>
              <CodeBlock code={WEBHOOK_VERIFY} label="ts" />
            </div>
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="Errors" description="Every error has the same envelope: error.message, error.type and error.code." />
          <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Error codes">
            <table className="min-w-full divide-y divide-zinc-200 text-sm">
              <thead>
                <tr className="bg-zinc-50 text-left text-xs font-medium uppercase tracking-wide text-zinc-500">
                  <th className="px-4 py-2.5">Status</th>
                  <th className="px-4 py-2.5">Code</th>
                  <th className="px-4 py-2.5">What to do</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {ERRORS.map(([s, c, w]) => (
                  <tr key={c}>
                    <td className="whitespace-nowrap px-4 py-2.5 tabular-nums">{s}</td>
                    <td className="whitespace-nowrap px-4 py-2.5 font-mono text-xs">{c}</td>
                    <td className="px-4 py-2.5 text-zinc-600">{w}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Card>
      </div>
    </>
  );
}
