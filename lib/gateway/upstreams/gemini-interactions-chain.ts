/**
 * The vendor keeps an interaction's history, so a `gemini-interactions` call needs only the new
 * turn plus `previous_interaction_id`. Clients send the whole conversation every time; this
 * remembers, per client credential, which vendor interaction ends each conversation it served
 * (a digest of the messages and the answer), and finds the longest remembered prefix of the next
 * request. A miss — another instance, a restart, an edited history, an expired interaction —
 * only costs sending the whole history again, so the memory is per process and bounded.
 */
import { createHash, type Hash } from "node:crypto";
import { argumentsToObject, type CanonicalMessage, type OutputPart } from "../canonical";
import { bareToolId } from "../conversion/signatures";
import { processSingleton } from "../../process-singleton";
import type { ClientHeaders } from "./text-types";

const MAX_CHAINS = 20_000;
const chains = processSingleton("gateway.geminiInteractions.chains", () => new Map<string, string>());

/**
 * The scope of a chain: the client's own credential (hashed) and the upstream entry, so one
 * key's conversation is never continued for another key. No credential header: no chaining.
 */
export function chainScope(headers: ClientHeaders | undefined, upstreamId: string, upstreamModel: string): string | null {
  const h = (n: string) => {
    const v = headers?.[n];
    return Array.isArray(v) ? v[0] : v;
  };
  const credential = h("authorization") ?? h("x-api-key") ?? h("x-goog-api-key");
  if (!credential) return null;
  return createHash("sha256").update(`${credential}\n${upstreamId}\n${upstreamModel}`).digest("hex");
}

/** A message as the digest sees it: what survives a client's round trip (no cache marks, no reasoning, bare call ids). */
function normalized(m: { role: string; parts: ReadonlyArray<CanonicalMessage["parts"][number] | OutputPart> }): string {
  if (m.role === "assistant") {
    let text = "";
    const calls: unknown[] = [];
    for (const p of m.parts) {
      if (p.type === "text") text += p.text;
      else if (p.type === "tool_call") calls.push([bareToolId(p.id), p.name, argumentsToObject(p.arguments)]);
    }
    return JSON.stringify(["a", text, calls]);
  }
  return JSON.stringify([
    "u",
    m.parts.map((p) => {
      if (p.type === "tool_result") return ["r", bareToolId(p.callId), p.content.map(({ cacheControl: _c, ...c }) => c), !!p.isError];
      if (p.type === "reasoning") return null;
      const { cacheControl: _c, ...rest } = p as { cacheControl?: unknown };
      return rest;
    }),
  ]);
}

/** Digests after each message: keys[i] names the conversation messages[0..i]. */
function digests(scope: string, messages: CanonicalMessage[]): { keys: string[]; hash: Hash } {
  const hash = createHash("sha256").update(scope);
  const keys: string[] = [];
  for (const m of messages) {
    hash.update(normalized(m));
    keys.push(hash.copy().digest("hex"));
  }
  return { keys, hash };
}

/** The vendor interaction ending the longest remembered prefix (which ends on an assistant turn), and where the new turn starts. */
export function findChain(scope: string, messages: CanonicalMessage[]): { previousId: string; from: number; key: string } | null {
  const { keys } = digests(scope, messages);
  for (let i = messages.length - 2; i >= 0; i--) {
    if (messages[i]!.role !== "assistant") continue;
    const previousId = chains().get(keys[i]!);
    if (previousId) return { previousId, from: i + 1, key: keys[i]! };
  }
  return null;
}

/** Remembers that `vendorId` ends `messages` followed by the answer `output`. */
export function rememberChain(scope: string, messages: CanonicalMessage[], output: OutputPart[], vendorId: string): void {
  if (!vendorId) return;
  const { hash } = digests(scope, messages);
  const key = hash.update(normalized({ role: "assistant", parts: output })).digest("hex");
  const m = chains();
  m.delete(key);
  m.set(key, vendorId);
  // Oldest first out (a Map keeps insertion order).
  while (m.size > MAX_CHAINS) m.delete(m.keys().next().value!);
}

/** The vendor no longer has it (expired or deleted): forget it. */
export function forgetChain(key: string): void {
  chains().delete(key);
}
