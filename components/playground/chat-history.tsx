"use client";
/** The conversations kept in this browser, newest first: open one, start a new one, delete one. */
import type { Conversation } from "@/lib/playground/conversations";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { cx } from "../ui/cx";
import { Ago } from "../ui/money";

export function ChatHistory({
  items,
  current,
  busy,
  onOpen,
  onNew,
  onDelete,
}: {
  items: Conversation[];
  current: string;
  busy: boolean;
  onOpen: (c: Conversation) => void;
  onNew: () => void;
  onDelete: (id: string) => void;
}) {
  return (
    <Card>
      <CardHeader
        title="History"
        description="Kept in this browser only."
        action={
          <Button variant="secondary" size="sm" onClick={onNew} disabled={busy} data-testid="chat-new">
            New chat
          </Button>
        }
      />
      {items.length === 0 ? (
        <p className="px-5 py-4 text-sm text-zinc-600">Your conversations appear here.</p>
      ) : (
        <ul className="max-h-72 divide-y divide-zinc-100 overflow-y-auto" data-testid="chat-history" aria-label="Saved conversations">
          {items.map((c) => (
            <li key={c.id} className={cx("flex items-center gap-1 pr-2", c.id === current && "bg-zinc-100")}>
              <button
                type="button"
                className="min-w-0 flex-1 px-5 py-2 text-left focus-visible:outline-2 focus-visible:outline-zinc-900 disabled:cursor-not-allowed"
                onClick={() => onOpen(c)}
                disabled={busy}
                aria-current={c.id === current ? "true" : undefined}
                data-testid="chat-history-item"
              >
                <span className="block truncate text-sm font-medium text-zinc-900">{c.title}</span>
                <span className="block text-xs text-zinc-600">
                  {c.models.length > 1 ? `${c.models.length} models · ` : ""}
                  {c.turns.length} {c.turns.length === 1 ? "turn" : "turns"} · <Ago iso={new Date(c.updatedAt).toISOString()} />
                </span>
              </button>
              <Button variant="ghost" size="sm" onClick={() => onDelete(c.id)} disabled={busy} aria-label={`Delete “${c.title}”`} data-testid="chat-history-delete">
                Delete
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
