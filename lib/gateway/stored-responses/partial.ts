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

/** A message's content part or a reasoning item's summary part, as it was added. */
function setPart(item: Item, key: "content" | "summary", index = 0, part: unknown) {
  ((item[key] ??= []) as unknown[])[index] = structuredClone(part);
}

function appendText(item: Item, key: "content" | "summary", index = 0, delta = "") {
  const part = (item[key] as Array<{ text?: string }> | undefined)?.[index];
  if (part) part.text = (part.text ?? "") + delta;
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
        if (item) setPart(item, "content", ev.content_index, ev.part);
        break;
      case "response.output_text.delta":
        if (item) appendText(item, "content", ev.content_index, ev.delta);
        break;
      case "response.reasoning_summary_part.added":
        if (item) setPart(item, "summary", ev.summary_index, ev.part);
        break;
      case "response.reasoning_summary_text.delta":
        if (item) appendText(item, "summary", ev.summary_index, ev.delta);
        break;
      case "response.function_call_arguments.delta":
        if (item) item.arguments = String(item.arguments ?? "") + (ev.delta ?? "");
        break;
    }
  }
  return items.flatMap((it, i) => (it ? [done.has(i) || !("status" in it) ? it : { ...it, status: "incomplete" }] : []));
}
