"use client";
/** Chat: model, protocol, system prompt, temperature, max tokens; streamed replies with Stop, usage per reply and view-code. */
import { useEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { Empty } from "../ui/states";
import { num, usd, usdProse } from "../console/format";
import { CHAT_PROTOCOLS, type ChatProtocol, type ChatSettings, type ChatTurn } from "@/lib/playground/chat-protocols";
import type { FriendlyError } from "@/lib/playground/friendly-error";
import type { PlaygroundModel } from "@/lib/playground/models";
import { CodePanel } from "./code-panel";
import { ErrorCallout } from "./error-callout";
import { streamChat, type ReplyStats } from "./stream-chat";
import { useInspector } from "../inspector/request-inspector";

interface Message {
  id: number;
  role: "user" | "assistant";
  text: string;
  state: "streaming" | "done" | "stopped" | "error";
  stats?: ReplyStats | null;
  error?: FriendlyError | null;
  requestId?: string | null;
  model?: string;
  protocol?: ChatProtocol;
}

let nextId = 1;

function parseSettings(temperature: string, maxTokens: string): { temperature?: number; maxTokens?: number; errors: { temperature?: string; maxTokens?: string } } {
  const errors: { temperature?: string; maxTokens?: string } = {};
  let t: number | undefined;
  let m: number | undefined;
  if (temperature.trim() !== "") {
    t = Number(temperature);
    if (!Number.isFinite(t) || t < 0 || t > 2) errors.temperature = "Temperature is a number from 0 to 2.";
  }
  if (maxTokens.trim() !== "") {
    m = Number(maxTokens);
    if (!Number.isInteger(m) || m < 1 || m > 200_000) errors.maxTokens = "Max tokens is a whole number from 1 to 200000.";
  }
  return { temperature: t, maxTokens: m, errors };
}

export function ChatPanel({ models, baseUrl }: { models: PlaygroundModel[]; baseUrl: string }) {
  const textModels = models.filter((m) => m.kind === "text");
  const qc = useQueryClient();
  const [model, setModel] = useState(textModels[0]?.id ?? "");
  const [protocol, setProtocol] = useState<ChatProtocol>("chat-completions");
  const [system, setSystem] = useState("");
  const [temperature, setTemperature] = useState("");
  const [maxTokens, setMaxTokens] = useState("");
  const [draft, setDraft] = useState("");
  const [messages, setMessages] = useState<Message[]>([]);
  const [showCode, setShowCode] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const bottom = useRef<HTMLDivElement | null>(null);
  const busy = messages.some((m) => m.state === "streaming");
  const parsed = parseSettings(temperature, maxTokens);
  const settings: ChatSettings = { model, system, temperature: parsed.temperature, maxTokens: parsed.maxTokens };
  // A turn whose reply failed with nothing generated is left out of what is sent next (with its question).
  const history: ChatTurn[] = useMemo(() => {
    const failed = (m: Message | undefined) => m?.role === "assistant" && m.state === "error" && m.text === "";
    return messages
      .filter((m, i) => m.text !== "" && !(m.role === "user" && failed(messages[i + 1])))
      .map((m) => ({ role: m.role, text: m.text }));
  }, [messages]);

  // Braces matter: recent Chromium returns a Promise from scrollIntoView, which React would take for a cleanup.
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [messages]);
  useEffect(() => () => abort.current?.abort(), []);

  if (!textModels.length) return <Empty title="No text models">Your account has no text models. An admin can add one under Admin → Models.</Empty>;

  async function send() {
    const text = draft.trim();
    if (!text || busy || Object.keys(parsed.errors).length) return;
    const user: Message = { id: nextId++, role: "user", text, state: "done" };
    const reply: Message = { id: nextId++, role: "assistant", text: "", state: "streaming", model, protocol };
    const turns = [...history, { role: "user" as const, text }];
    setDraft("");
    setMessages((m) => [...m, user, reply]);
    const ctl = new AbortController();
    abort.current = ctl;
    const update = (f: (m: Message) => Message) => setMessages((all) => all.map((m) => (m.id === reply.id ? f(m) : m)));
    const out = await streamChat(protocol, settings, turns, ctl.signal, (t) => update((m) => ({ ...m, text: m.text + t })));
    update((m) => ({
      ...m,
      state: out.stopped ? "stopped" : out.error ? "error" : "done",
      stats: out.stats,
      error: out.error,
      requestId: out.requestId,
    }));
    abort.current = null;
    // The balance in the header moved.
    void qc.invalidateQueries({ queryKey: ["me"] });
  }

  return (
    <div className="grid gap-4 lg:grid-cols-[300px_minmax(0,1fr)]">
      <Card>
        <CardHeader title="Settings" />
        <CardBody className="space-y-4">
          <SelectField label="Model" value={model} onChange={(e) => setModel(e.target.value)} data-testid="chat-model">
            {textModels.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Protocol"
            value={protocol}
            onChange={(e) => setProtocol(e.target.value as ChatProtocol)}
            hint={CHAT_PROTOCOLS.find((p) => p.id === protocol)?.route}
            data-testid="chat-protocol"
          >
            {CHAT_PROTOCOLS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </SelectField>
          <TextAreaField label="System prompt" optional rows={3} value={system} onChange={(e) => setSystem(e.target.value)} placeholder="You are a helpful assistant." />
          <div className="grid grid-cols-2 gap-3">
            <TextField label="Temperature" inputMode="decimal" placeholder="default" value={temperature} onChange={(e) => setTemperature(e.target.value)} error={parsed.errors.temperature} />
            <TextField label="Max tokens" inputMode="numeric" placeholder="default" value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} error={parsed.errors.maxTokens} />
          </div>
          <div className="flex flex-wrap gap-2 border-t border-zinc-100 pt-4">
            <Button variant="secondary" size="sm" onClick={() => setShowCode((v) => !v)} aria-expanded={showCode} data-testid="view-code">
              {showCode ? "Hide code" : "View code"}
            </Button>
            <Button variant="ghost" size="sm" onClick={() => setMessages([])} disabled={busy || !messages.length}>
              Clear chat
            </Button>
          </div>
        </CardBody>
      </Card>

      <div className="min-w-0 space-y-4">
        {showCode && <CodePanel protocol={protocol} baseUrl={baseUrl} settings={settings} turns={draft.trim() ? [...history, { role: "user", text: draft.trim() }] : history} />}
        <Card className="flex min-h-[420px] flex-col">
          <div className="max-h-[65vh] flex-1 space-y-4 overflow-y-auto px-5 py-4" aria-live="polite" data-testid="chat-log">
            {!messages.length && <p className="py-16 text-center text-sm text-zinc-500">Send a message to start. Replies stream in as the model writes them, billed to your balance.</p>}
            {messages.map((m) => (
              <MessageView key={m.id} m={m} />
            ))}
            <div ref={bottom} />
          </div>
          <form
            className="flex items-end gap-2 border-t border-zinc-100 p-3"
            onSubmit={(e) => {
              e.preventDefault();
              void send();
            }}
          >
            <label htmlFor="chat-input" className="sr-only">
              Message
            </label>
            <textarea
              id="chat-input"
              data-testid="chat-input"
              rows={2}
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  void send();
                }
              }}
              placeholder="Message (Enter to send, Shift+Enter for a new line)"
              className="block min-h-[44px] flex-1 resize-y rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm placeholder:text-zinc-500 focus:outline-none focus:ring-2 focus:ring-zinc-900/10"
            />
            {busy ? (
              <Button variant="danger" onClick={() => abort.current?.abort()} data-testid="chat-stop">
                Stop
              </Button>
            ) : (
              <Button type="submit" disabled={!draft.trim() || Object.keys(parsed.errors).length > 0} data-testid="chat-send">
                Send
              </Button>
            )}
          </form>
        </Card>
      </div>
    </div>
  );
}

function MessageView({ m }: { m: Message }) {
  if (m.role === "user") {
    return (
      <div className="flex justify-end">
        <p className="max-w-[85%] whitespace-pre-wrap rounded-lg bg-zinc-900 px-3.5 py-2 text-sm text-white" data-testid="chat-user">
          {m.text}
        </p>
      </div>
    );
  }
  return (
    <div className="max-w-[90%] space-y-1.5" data-testid="chat-reply" data-state={m.state}>
      {(m.text || m.state !== "error") && (
        <div className="whitespace-pre-wrap rounded-lg border border-zinc-200 bg-zinc-50 px-3.5 py-2 text-sm text-zinc-900" data-testid="chat-reply-text">
          {m.text}
          {m.state === "streaming" && <span className="ml-0.5 inline-block h-4 w-1.5 animate-pulse bg-zinc-400 align-text-bottom" aria-hidden="true" />}
          {!m.text && m.state !== "streaming" && <span className="text-zinc-500">(no text)</span>}
        </div>
      )}
      {m.error && <ErrorCallout error={m.error} />}
      {m.state !== "streaming" && (m.stats || m.state !== "error") && <UsageRow m={m} />}
    </div>
  );
}

function UsageRow({ m }: { m: Message }) {
  const s = m.stats;
  const inspector = useInspector();
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500" data-testid="reply-usage">
      {m.state === "stopped" && <Badge tone="amber">Stopped</Badge>}
      <span>
        <span data-testid="usage-input">{num(s?.inputTokens)}</span> in · <span data-testid="usage-output">{num(s?.outputTokens)}</span> out tokens
      </span>
      <span>
        Cost <span data-testid="usage-cost">{s?.costMicroUsd === null || s?.costMicroUsd === undefined ? "—" : usdProse(s.costMicroUsd)}</span>
      </span>
      <span>TTFT {s?.ttftMs === null || s?.ttftMs === undefined ? "—" : `${num(s.ttftMs)} ms`}</span>
      <span className="text-zinc-500">
        {m.model} · {CHAT_PROTOCOLS.find((p) => p.id === m.protocol)?.label}
        {s?.fromLog ? " · billed for what was generated" : ""}
      </span>
      {m.requestId && (
        <button type="button" className="font-medium text-zinc-700 underline hover:text-zinc-900" onClick={() => inspector.open(m.requestId!)} data-testid="reply-details">
          Details
        </button>
      )}
    </div>
  );
}
