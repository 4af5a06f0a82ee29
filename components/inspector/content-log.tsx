"use client";
/**
 * The request inspector's "Content" section (docs/content-logs.md): the logged prompt (messages,
 * tool calls and results, images as thumbnails) and the answer, a stream's reassembled. Only for
 * organisations that log prompts and answers; anything else shows why there is nothing.
 */
import { useQuery } from "@tanstack/react-query";
import type { ContentLogView, LoggedPart } from "@/lib/views";
import type { Wire } from "@/lib/console/wire";
import { api } from "../console/api";

function Part({ p }: { p: LoggedPart }) {
  switch (p.type) {
    case "text":
      return <p className="whitespace-pre-wrap break-words">{p.text}</p>;
    case "reasoning":
      return <p className="whitespace-pre-wrap break-words italic text-zinc-500">{p.text}</p>;
    case "image":
      if (p.data) return <img data-testid="content-image" src={`data:${p.mediaType ?? "image/png"};base64,${p.data}`} alt="image in the prompt" className="h-16 w-16 rounded border border-zinc-200 object-cover" />;
      if (p.url) return <p className="text-xs text-zinc-500">Image: {p.url}</p>;
      return <p className="text-xs text-zinc-500">Image ({p.omittedBytes} bytes, not kept)</p>;
    case "document":
      return <p className="text-xs text-zinc-500">Document {p.filename ?? ""} {p.text ? `: ${p.text.slice(0, 500)}` : p.url ? p.url : `(${p.omittedBytes ?? 0} bytes, not kept)`}</p>;
    case "tool_call":
      return (
        <p className="font-mono text-xs">
          → {p.name}({p.arguments})
        </p>
      );
    case "tool_result":
      return (
        <div className="border-l-2 border-zinc-200 pl-2 text-xs">
          <p className="font-mono">
            ← {p.name ?? p.callId}
            {p.isError ? " (error)" : ""}
          </p>
          {p.content.map((c, i) => (
            <Part key={i} p={c} />
          ))}
        </div>
      );
  }
}

export function ContentLog({ requestId }: { requestId: string }) {
  const q = useQuery({ queryKey: ["request", requestId, "content"], queryFn: () => api<Wire<ContentLogView>>(`/api/console/requests/${encodeURIComponent(requestId)}/content`), retry: false });
  if (q.isPending) return <p className="text-sm text-zinc-500">Loading…</p>;
  if (q.isError) return <p className="text-sm text-zinc-500">No content log: content logging was off for this request, the log has expired, or your role does not show it.</p>;
  const { request, answer, truncated } = q.data.content;
  return (
    <div className="space-y-3 text-sm" data-testid="inspector-content">
      {request.system && (
        <div>
          <p className="text-xs font-semibold text-zinc-600">system</p>
          <p className="whitespace-pre-wrap break-words">{request.system}</p>
        </div>
      )}
      {request.messages.map((m, i) => (
        <div key={i}>
          <p className="text-xs font-semibold text-zinc-600">{m.role}</p>
          <div className="flex flex-wrap gap-2">
            {m.parts.map((p, j) => (
              <div key={j} className={p.type === "image" ? "" : "w-full"}>
                <Part p={p} />
              </div>
            ))}
          </div>
        </div>
      ))}
      <div data-testid="inspector-answer">
        <p className="text-xs font-semibold text-zinc-600">answer{q.data.stream ? " (streamed, reassembled)" : ""}</p>
        {answer.reasoning && <Part p={{ type: "reasoning", text: answer.reasoning }} />}
        <p className="whitespace-pre-wrap break-words">{answer.text}</p>
        {answer.toolCalls.map((c) => (
          <Part key={c.id} p={{ type: "tool_call", ...c }} />
        ))}
        {answer.error && <p className="text-xs text-red-600">Ended early: {answer.error}</p>}
      </div>
      {truncated && <p className="text-xs text-zinc-500">Long strings were cut to keep the log within its size limit.</p>}
    </div>
  );
}
