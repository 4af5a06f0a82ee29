/**
 * Playground conversations as the browser keeps them (localStorage, per signed-in user): each
 * turn is one prompt and a reply from every compared model (one to three columns). Pure
 * functions over a Storage-like object so vitest can run them without a browser.
 */
import type { ChatProtocol, ChatTurn } from "./chat-protocols";
import type { FriendlyError } from "./friendly-error";

export interface ReplyStats {
  inputTokens: number | null;
  outputTokens: number | null;
  costMicroUsd: number | null;
  /** Measured in the browser: request sent → first text on screen. */
  ttftMs: number | null;
  /** The numbers come from the request log (after a Stop) rather than the stream. */
  fromLog: boolean;
}

export interface Reply {
  model: string;
  text: string;
  state: "streaming" | "done" | "stopped" | "error";
  stats?: ReplyStats | null;
  error?: FriendlyError | null;
  requestId?: string | null;
  protocol: ChatProtocol;
}

export interface Turn {
  id: string;
  prompt: string;
  /** One per column, in column order. */
  replies: Reply[];
}

export interface Conversation {
  id: string;
  title: string;
  updatedAt: number;
  /** The compared models, one per column (1–3). */
  models: string[];
  protocol: ChatProtocol;
  system: string;
  temperature: string;
  maxTokens: string;
  turns: Turn[];
}

export const MAX_COLUMNS = 3;
/** Oldest conversations beyond this are dropped, so localStorage never fills up. */
export const MAX_CONVERSATIONS = 50;

type KV = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export const storageKey = (userId: string) => `gw.playground.${userId}.conversations.v1`;

export function titleOf(prompt: string): string {
  const line = prompt.trim().split(/\s+/).join(" ");
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || "New chat";
}

/**
 * What column `col` sends for a new prompt: every earlier turn's prompt with that column's own
 * reply. A turn whose reply failed with nothing generated is left out (with its prompt).
 */
export function historyFor(turns: Turn[], col: number): ChatTurn[] {
  const out: ChatTurn[] = [];
  for (const t of turns) {
    const r = t.replies[col];
    if (!r || r.state === "streaming" || (r.state === "error" && r.text === "")) continue;
    out.push({ role: "user", text: t.prompt });
    if (r.text) out.push({ role: "assistant", text: r.text });
  }
  return out;
}

/** Replies that were streaming when the page went away are stored as stopped. */
function settle(c: Conversation): Conversation {
  return { ...c, turns: c.turns.map((t) => ({ ...t, replies: t.replies.map((r) => (r.state === "streaming" ? { ...r, state: "stopped" as const } : r)) })) };
}

function isConversation(v: unknown): v is Conversation {
  const c = v as Conversation;
  return Boolean(c) && typeof c.id === "string" && Array.isArray(c.turns) && Array.isArray(c.models) && typeof c.updatedAt === "number";
}

/** Newest first; anything unreadable is ignored rather than breaking the page. */
export function loadConversations(store: KV, userId: string): Conversation[] {
  try {
    const raw = JSON.parse(store.getItem(storageKey(userId)) ?? "[]") as unknown;
    return Array.isArray(raw) ? raw.filter(isConversation).sort((a, b) => b.updatedAt - a.updatedAt) : [];
  } catch {
    return [];
  }
}

function write(store: KV, userId: string, all: Conversation[]): Conversation[] {
  let list = all.slice(0, MAX_CONVERSATIONS);
  // A full storage quota drops the oldest until the rest fits.
  for (;;) {
    try {
      store.setItem(storageKey(userId), JSON.stringify(list));
      return list;
    } catch {
      if (list.length <= 1) return list;
      list = list.slice(0, -1);
    }
  }
}

/** Inserts or replaces one conversation (empty ones are not kept); returns the new list. */
export function saveConversation(store: KV, userId: string, c: Conversation): Conversation[] {
  const rest = loadConversations(store, userId).filter((x) => x.id !== c.id);
  if (!c.turns.length) return write(store, userId, rest);
  return write(store, userId, [settle(c), ...rest].sort((a, b) => b.updatedAt - a.updatedAt));
}

export function deleteConversation(store: KV, userId: string, id: string): Conversation[] {
  return write(store, userId, loadConversations(store, userId).filter((x) => x.id !== id));
}
