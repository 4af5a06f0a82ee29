/**
 * Fake Google Interactions API upstream (the wire of @google/genai's interactions client):
 * POST /v1beta/interactions with x-goog-api-key; an `Interaction` (`steps`, `usage` with
 * total_input/output/thought_tokens, `status` requires_action after a function call), or with
 * `stream: true` the step-typed SSE events (interaction.created, step.start/delta/stop,
 * interaction.status_update, interaction.completed). It keeps what it stored: a
 * `previous_interaction_id` it never issued (or forgot: `forget()`, as an expired one) is a 404,
 * and `store: false` interactions cannot be continued.
 */
import { startFake, words, type FakeTextUpstream, type Protocol, type TextScript } from "./text-fake-core";

export const GEMINI_INTERACTIONS_FAKE_KEY = "sk-upstream-fake-gemini-interactions";

const STATUS: Record<number, string> = { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE" };

export interface FakeInteractions extends FakeTextUpstream {
  /** The vendor no longer has the interactions it issued (expired). */
  forget(): void;
}

export async function startFakeGeminiInteractions(): Promise<FakeInteractions> {
  const stored = new Set<string>();
  let n = 0;
  const issue = (body: any) => {
    const id = `v1_fake${++n}`;
    if (body?.store !== false) stored.add(id);
    return id;
  };
  /** total_output_tokens excludes total_thought_tokens; total_input_tokens counts the kept history too. */
  const usage = (s: TextScript) => {
    if (s.rawUsage) return s.rawUsage;
    if (!s.usage) return undefined;
    const thought = s.usage.reasoning ?? 0;
    return {
      total_input_tokens: s.usage.input,
      total_output_tokens: s.usage.output - thought,
      total_thought_tokens: thought,
      total_tokens: s.usage.input + s.usage.output,
      ...(s.usage.cacheRead ? { total_cached_tokens: s.usage.cacheRead } : {}),
    };
  };
  const callId = (s: TextScript, i: number) => s.toolCalls[i]!.id ?? `call_fake_${i}`;
  const status = (s: TextScript) => (s.toolCalls.length ? "requires_action" : "completed");
  const steps = (s: TextScript) => [
    ...(s.reasoning ? [{ type: "thought", signature: "sig-fake", summary: [{ type: "text", text: s.reasoning }] }] : []),
    ...(s.text ? [{ type: "model_output", content: [{ type: "text", text: s.text }] }] : []),
    ...s.toolCalls.map((t, i) => ({ type: "function_call", id: callId(s, i), name: t.name, arguments: JSON.parse(t.arguments) })),
  ];
  const interaction = (id: string, s: TextScript, body: any, withSteps: boolean) => ({
    id,
    object: "interaction",
    model: body?.model,
    status: status(s),
    created: "2026-11-28T12:00:00Z",
    updated: "2026-11-28T12:00:01Z",
    ...(withSteps ? { steps: steps(s) } : {}),
    ...(usage(s) ? { usage: usage(s) } : {}),
    ...(body?.previous_interaction_id ? { previous_interaction_id: body.previous_interaction_id } : {}),
  });

  const protocol: Protocol = {
    match: (path) => (path.split("?")[0] === "/v1beta/interactions" ? { stream: false } : null),
    keyOf: (req) => req.headers["x-goog-api-key"] as string | undefined,
    refuse: (_req, body) => {
      if (!body || typeof body !== "object") return { status: 400, message: "Invalid JSON payload." };
      if (!body.model && !body.agent) return { status: 400, message: "model or agent is required." };
      if (body.input === undefined) return { status: 400, message: "input is required." };
      const prev = body.previous_interaction_id;
      if (prev !== undefined && !stored.has(prev)) return { status: 404, message: `Interaction ${prev} not found.` };
      return null;
    },
    errorBody: (status, message) => ({ error: { code: status, message, status: STATUS[status] ?? "INTERNAL" } }),
    json: (s, body) => interaction(issue(body), s, body, true),
    events: (s, body) => {
      const id = issue(body);
      let seq = 0;
      const ev = (event_type: string, data: Record<string, unknown>) => `event: ${event_type}\ndata: ${JSON.stringify({ event_type, ...data, event_id: `e${++seq}` })}\n\n`;
      const out = [ev("interaction.created", { interaction: { id, status: "in_progress", object: "interaction", model: body?.model } }), ev("interaction.status_update", { interaction_id: id, status: "in_progress" })];
      let index = 0;
      if (s.reasoning) {
        out.push(ev("step.start", { index, step: { type: "thought" } }));
        out.push(ev("step.delta", { index, delta: { type: "thought_summary", content: { type: "text", text: s.reasoning } } }));
        out.push(ev("step.delta", { index, delta: { type: "thought_signature", signature: "sig-fake" } }));
        out.push(ev("step.stop", { index: index++ }));
      }
      if (s.text) {
        out.push(ev("step.start", { index, step: { type: "model_output" } }));
        for (const w of words(s.text)) out.push(ev("step.delta", { index, delta: { type: "text", text: w } }));
        out.push(ev("step.stop", { index: index++ }));
      }
      s.toolCalls.forEach((t, i) => {
        out.push(ev("step.start", { index, step: { type: "function_call", id: callId(s, i), name: t.name, arguments: {} } }));
        out.push(ev("step.delta", { index, delta: { type: "arguments_delta", arguments: t.arguments } }));
        out.push(ev("step.stop", { index: index++ }));
      });
      out.push(ev("interaction.status_update", { interaction_id: id, status: status(s) }));
      out.push(ev("interaction.completed", { interaction: interaction(id, s, body, false) }));
      return out;
    },
    truncateAt: (events) => Math.max(1, events.length - 2),
  };
  // The stream is asked for in the body, not the path.
  const streamed: Protocol = { ...protocol, match: (path, body) => (protocol.match(path, body) ? { stream: body?.stream === true } : null) };
  const fake = await startFake(streamed, GEMINI_INTERACTIONS_FAKE_KEY, "");
  return Object.assign(fake, { forget: () => stored.clear() });
}
