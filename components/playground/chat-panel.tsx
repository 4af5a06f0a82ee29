"use client";
/**
 * Chat: one to three models side by side on the same prompt (tokens, cost and TTFT per column),
 * replies rendered as Markdown, conversations kept in this browser with a history list, and
 * regenerate / edit of the last turn. The log has a fixed height and scrolls itself, so a
 * streaming reply never moves the page; on phones the settings fold away and the composer
 * stays pinned to the bottom of the screen.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { cx } from "../ui/cx";
import { Empty } from "../ui/states";
import { num, usdProse } from "../console/format";
import { useMe } from "../console/hooks";
import { CHAT_PROTOCOLS, type ChatSettings } from "@/lib/playground/chat-protocols";
import { historyFor, loadConversations, MAX_COLUMNS, saveConversation, deleteConversation, titleOf, type Conversation, type Reply, type Turn } from "@/lib/playground/conversations";
import type { PlaygroundModel } from "@/lib/views";
import { ChatHistory } from "./chat-history";
import { ChatSettingsCard, parseSettings } from "./chat-settings";
import { CodePanel } from "./code-panel";
import { ErrorCallout } from "./error-callout";
import { Markdown } from "./markdown";
import { streamChat } from "./stream-chat";
import { useInspector } from "../inspector/request-inspector";

const newId = () => (typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`);

function blank(model: string, from?: Conversation): Conversation {
  return {
    id: newId(),
    title: "New chat",
    updatedAt: Date.now(),
    models: from?.models ?? [model],
    protocol: from?.protocol ?? "chat-completions",
    system: from?.system ?? "",
    temperature: from?.temperature ?? "",
    maxTokens: from?.maxTokens ?? "",
    turns: [],
  };
}

/** localStorage when the browser lets the page use it (private modes may not). */
function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export function ChatPanel({ models, baseUrl }: { models: PlaygroundModel[]; baseUrl: string }) {
  const textModels = models.filter((m) => m.kind === "text");
  const qc = useQueryClient();
  const userId = useMe().data?.user.id ?? null;
  const [conv, setConv] = useState<Conversation>(() => blank(textModels[0]?.id ?? ""));
  const [saved, setSaved] = useState<Conversation[]>([]);
  const [draft, setDraft] = useState("");
  const [showCode, setShowCode] = useState(false);
  const [sideOpen, setSideOpen] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const log = useRef<HTMLDivElement | null>(null);
  const input = useRef<HTMLTextAreaElement | null>(null);
  const stick = useRef(true);
  const lastSave = useRef(0);
  const loadedFor = useRef<string | null>(null);
  const busy = conv.turns.some((t) => t.replies.some((r) => r.state === "streaming"));
  const parsed = parseSettings(conv.temperature, conv.maxTokens);
  const invalid = Object.keys(parsed.errors).length > 0;
  const known = new Set(textModels.map((m) => m.id));

  // The saved conversations of this user, the newest reopened (a reload keeps the chat).
  useEffect(() => {
    const store = storage();
    if (!userId || !store || loadedFor.current === userId) return;
    loadedFor.current = userId;
    const list = loadConversations(store, userId);
    setSaved(list);
    if (list[0]) setConv({ ...list[0], models: list[0].models.filter((m) => known.has(m)).length ? list[0].models : [textModels[0]?.id ?? ""] });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per user
  }, [userId]);

  // Saved as it changes; while streaming at most once a second.
  useEffect(() => {
    const store = storage();
    if (!userId || !store || loadedFor.current !== userId) return;
    const now = Date.now();
    if (busy && now - lastSave.current < 1000) return;
    lastSave.current = now;
    setSaved(saveConversation(store, userId, conv));
  }, [conv, busy, userId]);

  // Follow the newest text only while the reader is at the bottom; scroll the log, never the page.
  useEffect(() => {
    const el = log.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [conv]);
  useEffect(() => () => abort.current?.abort(), []);

  const update = useCallback((f: (c: Conversation) => Conversation) => setConv((c) => ({ ...f(c), updatedAt: Date.now() })), []);

  if (!textModels.length) return <Empty title="No text models">Your account has no text models. An admin can add one under Admin → Models.</Empty>;

  /** Streams every column's reply to `prompt` as turn `turnId`, after the turns before it. */
  async function run(turnId: string, prompt: string, before: Turn[], c: Conversation) {
    const ctl = new AbortController();
    abort.current = ctl;
    stick.current = true;
    const setReply = (col: number, f: (r: Reply) => Reply) =>
      update((x) => ({ ...x, turns: x.turns.map((t) => (t.id === turnId ? { ...t, replies: t.replies.map((r, i) => (i === col ? f(r) : r)) } : t)) }));
    await Promise.all(
      c.models.map(async (model, col) => {
        const settings: ChatSettings = { model, system: c.system, temperature: parsed.temperature, maxTokens: parsed.maxTokens };
        const turns = [...historyFor(before, col), { role: "user" as const, text: prompt }];
        const out = await streamChat(c.protocol, settings, turns, ctl.signal, (t) => setReply(col, (r) => ({ ...r, text: r.text + t })));
        setReply(col, (r) => ({ ...r, state: out.stopped ? "stopped" : out.error ? "error" : "done", stats: out.stats, error: out.error, requestId: out.requestId }));
      }),
    );
    if (abort.current === ctl) abort.current = null;
    // The balance in the header moved.
    void qc.invalidateQueries({ queryKey: ["me"] });
  }

  const pending = (c: Conversation): Reply[] => c.models.map((model) => ({ model, text: "", state: "streaming", protocol: c.protocol }));

  function send() {
    const prompt = draft.trim();
    if (!prompt || busy || invalid) return;
    const turn: Turn = { id: newId(), prompt, replies: pending(conv) };
    const before = conv.turns;
    setDraft("");
    update((c) => ({ ...c, title: c.turns.length ? c.title : titleOf(prompt), turns: [...c.turns, turn] }));
    void run(turn.id, prompt, before, conv);
  }

  function regenerate() {
    const last = conv.turns.at(-1);
    if (!last || busy || invalid) return;
    const before = conv.turns.slice(0, -1);
    const turn: Turn = { id: newId(), prompt: last.prompt, replies: pending(conv) };
    update((c) => ({ ...c, turns: [...before, turn] }));
    void run(turn.id, last.prompt, before, conv);
  }

  function editLast() {
    const last = conv.turns.at(-1);
    if (!last || busy) return;
    setDraft(last.prompt);
    update((c) => ({ ...c, turns: c.turns.slice(0, -1) }));
    input.current?.focus();
  }

  function open(c: Conversation) {
    if (busy) return;
    setConv(c);
    setDraft("");
    setSideOpen(false);
    stick.current = true;
  }

  function startNew() {
    if (busy) return;
    setConv(blank(textModels[0]!.id, conv));
    setDraft("");
    setSideOpen(false);
    input.current?.focus();
  }

  function remove(id: string) {
    const store = storage();
    if (!userId || !store) return;
    setSaved(deleteConversation(store, userId, id));
    if (id === conv.id) setConv(blank(textModels[0]!.id, conv));
  }

  const columns = conv.models.length;
  const lastTurn = conv.turns.at(-1);
  const codeTurns = [...historyFor(conv.turns, 0), ...(draft.trim() ? [{ role: "user" as const, text: draft.trim() }] : [])];

  return (
    <div className="grid gap-4 lg:grid-cols-[300px_minmax(0,1fr)]">
      <div className="flex gap-2 lg:hidden">
        <Button variant="secondary" size="sm" onClick={() => setSideOpen((v) => !v)} aria-expanded={sideOpen} aria-controls="chat-side" data-testid="chat-side-toggle">
          {sideOpen ? "Hide settings & history" : "Settings & history"}
        </Button>
        <span className="self-center truncate text-xs text-zinc-600">{conv.models.join(" · ")}</span>
      </div>
      {/* Hidden by CSS under lg unless opened: the first paint is already the final layout. */}
      <div id="chat-side" className={cx(sideOpen ? "block" : "hidden", "space-y-4 lg:block")}>
        <ChatSettingsCard
          conv={conv}
          textModels={textModels}
          busy={busy}
          parsed={parsed}
          onChange={(patch) => update((c) => ({ ...c, ...patch }))}
          showCode={showCode}
          onToggleCode={() => setShowCode((v) => !v)}
          maxColumns={MAX_COLUMNS}
        />
        <ChatHistory items={saved} current={conv.id} busy={busy} onOpen={open} onNew={startNew} onDelete={remove} />
      </div>

      <div className="min-w-0 space-y-4">
        {showCode && <CodePanel protocol={conv.protocol} baseUrl={baseUrl} settings={{ model: conv.models[0]!, system: conv.system, temperature: parsed.temperature, maxTokens: parsed.maxTokens }} turns={codeTurns} />}
        <Card className="flex flex-col">
          <div
            ref={log}
            onScroll={(e) => {
              const el = e.currentTarget;
              stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
            }}
            className="h-[52vh] min-h-[300px] space-y-5 overflow-y-auto overscroll-contain px-4 py-4 sm:px-5 lg:h-[62vh]"
            role="log"
            aria-label="Conversation"
            aria-live="polite"
            tabIndex={0}
            data-testid="chat-log"
          >
            {!conv.turns.length && (
              <p className="py-16 text-center text-sm text-zinc-600">
                Send a message to start. Replies stream in as the model writes them, billed to your balance.
                {columns > 1 && ` Each of the ${columns} models answers in its own column.`}
              </p>
            )}
            {conv.turns.map((t) => (
              <TurnView key={t.id} t={t} columns={columns} />
            ))}
            {lastTurn && !busy && (
              <div className="flex flex-wrap justify-end gap-2">
                <Button variant="ghost" size="sm" onClick={editLast} data-testid="chat-edit-last">
                  Edit last message
                </Button>
                <Button variant="secondary" size="sm" onClick={regenerate} disabled={invalid} data-testid="chat-regenerate">
                  Regenerate
                </Button>
              </div>
            )}
          </div>
          <form
            className="sticky bottom-0 z-10 flex items-end gap-2 rounded-b-lg border-t border-zinc-100 bg-white p-3"
            data-testid="chat-composer"
            onSubmit={(e) => {
              e.preventDefault();
              send();
            }}
          >
            <label htmlFor="chat-input" className="sr-only">
              Message
            </label>
            <textarea
              ref={input}
              id="chat-input"
              data-testid="chat-input"
              rows={2}
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  send();
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
              <Button type="submit" disabled={!draft.trim() || invalid} data-testid="chat-send">
                Send
              </Button>
            )}
          </form>
        </Card>
      </div>
    </div>
  );
}

function TurnView({ t, columns }: { t: Turn; columns: number }) {
  return (
    <div className="space-y-3" data-testid="chat-turn">
      <div className="flex justify-end">
        <p className="max-w-[85%] whitespace-pre-wrap rounded-lg bg-zinc-900 px-3.5 py-2 text-sm text-white" data-testid="chat-user">
          {t.prompt}
        </p>
      </div>
      <div className={cx("grid gap-3", columns === 2 && "md:grid-cols-2", columns === 3 && "md:grid-cols-3")}>
        {t.replies.map((r, i) => (
          <ReplyView key={i} r={r} compare={columns > 1} />
        ))}
      </div>
    </div>
  );
}

function ReplyView({ r, compare }: { r: Reply; compare: boolean }) {
  return (
    <div className={cx("min-w-0 space-y-1.5", !compare && "max-w-[90%]")} data-testid="chat-reply" data-state={r.state} data-model={r.model}>
      {compare && <p className="font-mono text-xs font-medium text-zinc-700">{r.model}</p>}
      {(r.text || r.state !== "error") && (
        <div className="rounded-lg border border-zinc-200 bg-zinc-50 px-3.5 py-2 text-zinc-900" data-testid="chat-reply-text">
          {r.text && <Markdown text={r.text} />}
          {r.state === "streaming" && <span className="ml-0.5 inline-block h-4 w-1.5 animate-pulse bg-zinc-400 align-text-bottom" aria-hidden="true" />}
          {!r.text && r.state !== "streaming" && <span className="text-sm text-zinc-600">(no text)</span>}
        </div>
      )}
      {r.error && <ErrorCallout error={r.error} />}
      {r.state !== "streaming" && (r.stats || r.state !== "error") && <UsageRow r={r} compare={compare} />}
    </div>
  );
}

function UsageRow({ r, compare }: { r: Reply; compare: boolean }) {
  const s = r.stats;
  const inspector = useInspector();
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-600" data-testid="reply-usage">
      {r.state === "stopped" && <Badge tone="amber">Stopped</Badge>}
      <span>
        <span data-testid="usage-input">{num(s?.inputTokens)}</span> in · <span data-testid="usage-output">{num(s?.outputTokens)}</span> out tokens
      </span>
      <span>
        Cost <span data-testid="usage-cost">{s?.costMicroUsd === null || s?.costMicroUsd === undefined ? "—" : usdProse(s.costMicroUsd)}</span>
      </span>
      <span>
        TTFT <span data-testid="usage-ttft">{s?.ttftMs === null || s?.ttftMs === undefined ? "—" : `${num(s.ttftMs)} ms`}</span>
      </span>
      <span>
        {compare ? "" : `${r.model} · `}
        {CHAT_PROTOCOLS.find((p) => p.id === r.protocol)?.label}
        {s?.fromLog ? " · billed for what was generated" : ""}
      </span>
      {r.requestId && (
        <button type="button" className="font-medium text-zinc-700 underline hover:text-zinc-900" onClick={() => inspector.open(r.requestId!)} data-testid="reply-details" data-request-id={r.requestId}>
          Details
        </button>
      )}
    </div>
  );
}
