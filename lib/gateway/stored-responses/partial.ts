/**
 * What a cut Responses stream had produced: the output items rebuilt from its events (added,
 * text, summary and argument deltas, done). A cancelled background response shows them, with the
 * usage it was charged for (decision 0038). Items the stream did not finish are `incomplete`.
 */
import type { Item } from "./store";

type Ev = Record<string, unknown> & { type?: string; output_index?: number; content_index?: number; summary_index?: number; delta?: string };

function parse(event: string): Ev | null {
  const at = event.indexOf("data: ");
  if (at < 0) return null;
  const end = event.indexOf("\n", at);
  try {
    return JSON.parse(event.slice(at + 6, end < 0 ? undefined : end)) as Ev;
  } catch {
    return null;
  }
}

export function partialOutput(events: readonly string[]): Item[] {
  const items: Item[] = [];
  const done = new Set<number>();
  for (const raw of events) {
    const ev = parse(raw);
    const i = ev?.output_index;
    if (!ev || typeof i !== "number") continue;
    const item = items[i];
    switch (ev.type) {
      case "response.output_item.added":
        items[i] = structuredClone(ev.item as Item);
        break;
      case "response.output_item.done":
        items[i] = structuredClone(ev.item as Item);
        done.add(i);
        break;
      case "response.content_part.added":
        if (item) ((item.content ??= []) as unknown[])[ev.content_index ?? 0] = structuredClone(ev.part);
        break;
      case "response.output_text.delta": {
        const part = (item?.content as Array<{ text?: string }> | undefined)?.[ev.content_index ?? 0];
        if (part) part.text = (part.text ?? "") + (ev.delta ?? "");
        break;
      }
      case "response.reasoning_summary_part.added":
        if (item) ((item.summary ??= []) as unknown[])[ev.summary_index ?? 0] = structuredClone(ev.part);
        break;
      case "response.reasoning_summary_text.delta": {
        const part = (item?.summary as Array<{ text?: string }> | undefined)?.[ev.summary_index ?? 0];
        if (part) part.text = (part.text ?? "") + (ev.delta ?? "");
        break;
      }
      case "response.function_call_arguments.delta":
        if (item) item.arguments = String(item.arguments ?? "") + (ev.delta ?? "");
        break;
    }
  }
  return items.flatMap((it, i) => (it ? [done.has(i) || !("status" in it) ? it : { ...it, status: "incomplete" }] : []));
}
