"use client";
import { useState } from "react";
import { CodeBlock } from "../ui/copy-button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { cx } from "../ui/cx";
import type { ChatProtocol, ChatSettings, ChatTurn } from "@/lib/playground/chat-protocols";
import { chatCodeSamples } from "@/lib/playground/code-samples";
import { tabListKeys } from "../ui/tabs";

/** The current chat as curl and SDK code for the chosen protocol, with the real base URL and a placeholder key. */
export function CodePanel({ protocol, baseUrl, settings, turns }: { protocol: ChatProtocol; baseUrl: string; settings: ChatSettings; turns: ChatTurn[] }) {
  const samples = chatCodeSamples(protocol, baseUrl, settings, turns);
  const [tab, setTab] = useState("curl");
  const current = samples.find((s) => s.id === tab) ?? samples[0]!;
  return (
    <Card>
      <CardHeader title="Code" description="This conversation as an API call. Replace the placeholder with a key from API Keys." />
      <CardBody className="space-y-3">
        <div role="tablist" onKeyDown={tabListKeys} aria-label="Code language" className="flex gap-1">
          {samples.map((s) => (
            <button
              key={s.id}
              role="tab"
              type="button"
              aria-selected={s.id === current.id}
              tabIndex={s.id === current.id ? 0 : -1}
              onClick={() => setTab(s.id)}
              className={cx("rounded-md px-2.5 py-1 text-xs font-medium", s.id === current.id ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100")}
            >
              {s.label}
            </button>
          ))}
        </div>
        {/* Long conversations scroll inside the panel instead of stretching the page. */}
        <div data-testid="code-sample" className="max-h-[420px] overflow-y-auto rounded-md">
          <CodeBlock code={current.code} label={current.label} />
        </div>
      </CardBody>
    </Card>
  );
}
