/**
 * The built-in `demo` text upstream (docs/design.md, "The demo upstream"): a deterministic reply
 * derived from the prompt, streamed word by word, with real usage counts. It runs in-process
 * but goes through the same routing, billing and encoding as any upstream.
 */
import { partsText, type CanonicalRequest, type CanonicalResponse, type CanonicalTool, type OutputPart, type StopReason, type StreamEvent } from "../canonical";
import { randomBase62 } from "../../ids";
import { sleep } from "../../sleep";
import { estimatePromptTokens } from "../tokens";
import { clientGone, errors, type UpstreamFailure } from "../errors";
import type { TextAdapter, UpstreamChunk } from "./text-types";
import { logprobsRefusal } from "../conversion/policy";

/** Pause between streamed words, so a playground visibly streams. */
export const DEMO_WORD_DELAY_MS = 12;
/** The pause when the last message contains `[slow]` (like the demo video's `[fail]`): slow
 * enough to watch a reply stream and to press Stop in the middle of it. */
export const DEMO_SLOW_WORD_DELAY_MS = 250;

/** The reply to a prompt containing `[markdown]`: formatted text and a code block, so a client's rendering can be seen. */
export const DEMO_MARKDOWN = [
  "## Demo reply",
  "",
  "The demo model answers in **Markdown** when asked, with `inline code` and a list:",
  "",
  "- one key for every model",
  "- billed to your balance",
  "",
  "```ts",
  'const res = await fetch("/v1/chat/completions", { method: "POST" });',
  "console.log(await res.json());",
  "```",
].join("\n");

interface DemoPlan {
  /** Text pieces, one token each (a word with its leading space). */
  words: string[];
  call: { name: string; arguments: string } | null;
  stopReason: StopReason;
  stopSequence: string | null;
  /** Pause before each streamed word. */
  delayMs: number;
}

function sampleArgs(tool: CanonicalTool): string {
  const props = (tool.parameters?.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  const required = (tool.parameters?.required as string[] | undefined) ?? Object.keys(props);
  const args: Record<string, unknown> = {};
  for (const k of required) {
    const t = props[k]?.type;
    args[k] = props[k]?.enum?.[0] ?? (t === "number" || t === "integer" ? 1 : t === "boolean" ? true : t === "array" ? [] : t === "object" ? {} : "demo");
  }
  return JSON.stringify(args);
}

export function planDemoReply(req: CanonicalRequest): DemoPlan {
  const last = req.messages[req.messages.length - 1];
  const results = last?.role === "user" ? last.parts.filter((p) => p.type === "tool_result") : [];
  const tools = req.tools ?? [];
  const choice = req.toolChoice;
  let text: string;
  if (results.length) {
    const r = results[0]!;
    const out = partsText(r.type === "tool_result" ? r.content : []).slice(0, 200);
    text = `The tool answered: ${out}. That is all the demo model knows.`;
  } else if (tools.length && choice?.type !== "none") {
    const tool = (choice?.type === "tool" && tools.find((t) => t.name === choice.name)) || tools[0]!;
    return { words: [], call: { name: tool.name, arguments: sampleArgs(tool) }, stopReason: "tool_calls", stopSequence: null, delayMs: DEMO_WORD_DELAY_MS };
  } else {
    const prompt = last ? partsText(last.parts) : "";
    const words = prompt.split(/\s+/).filter(Boolean);
    const echo = words.slice(0, 12).join(" ");
    text = prompt.includes("[markdown]")
      ? DEMO_MARKDOWN
      : `This is the demo model of the gateway. You wrote ${words.length} word${words.length === 1 ? "" : "s"}` +
        (echo ? `, starting with: ${echo}.` : ".") +
        " Configure a real upstream to get real answers.";
  }
  let stopReason: StopReason = "end";
  let stopSequence: string | null = null;
  for (const s of req.stop ?? []) {
    const at = s ? text.indexOf(s) : -1;
    if (at >= 0) {
      text = text.slice(0, at);
      stopReason = "stop_sequence";
      stopSequence = s;
    }
  }
  let words = text.split(/(?=\s)/).filter((w) => w !== "");
  const cap = req.maxOutputTokens;
  if (cap !== undefined && words.length > cap) {
    words = words.slice(0, cap);
    stopReason = "max_tokens";
    stopSequence = null;
  }
  const slow = last ? partsText(last.parts).includes("[slow]") : false;
  return { words, call: null, stopReason, stopSequence, delayMs: slow ? DEMO_SLOW_WORD_DELAY_MS : DEMO_WORD_DELAY_MS };
}

function callTokens(call: { name: string; arguments: string }): number {
  return Math.max(1, Math.ceil((call.name.length + call.arguments.length) / 4));
}

/** A last message containing `[fail]` is answered with an upstream error (like the demo video's): failures offline, e.g. in a batch. */
function demoFailure(req: CanonicalRequest): UpstreamFailure | null {
  const last = req.messages[req.messages.length - 1];
  if (!last || !partsText(last.parts).includes("[fail]")) return null;
  return { ok: false, error: errors.upstream("The demo upstream failed this request, as asked ([fail] in the prompt)."), retryable: false };
}

export const demoChat: TextAdapter = {
  // The demo model answers from the prompt alone: every knob is accepted and has no effect.
  capabilities: {
    hints: new Set(["top_k", "seed", "presence_penalty", "frequency_penalty", "verbosity", "service_tier", "top_p", "temperature", "parallel_tool_calls", "cache_control", "prompt_cache_key"]),
    hostedTools: new Set(),
  },
  prepare(route, req) {
    const noLogprobs = logprobsRefusal(req);
    if (noLogprobs) return noLogprobs;
    return { ok: true, value: { route, publicModel: req.model, stream: req.stream, body: req, request: req, passthrough: false } };
  },
  async complete(call) {
    const req = call.request;
    const failed = demoFailure(req);
    if (failed) return failed;
    const plan = planDemoReply(req);
    const content: OutputPart[] = [];
    if (plan.words.length) content.push({ type: "text", text: plan.words.join("") });
    if (plan.call) content.push({ type: "tool_call", id: `call_${randomBase62(24)}`, ...plan.call });
    const response: CanonicalResponse = {
      id: `demo-${randomBase62(16)}`,
      model: call.route.upstreamModel,
      content,
      stopReason: plan.stopReason,
      stopSequence: plan.stopSequence,
      usage: { inputTokens: estimatePromptTokens(req), outputTokens: plan.words.length + (plan.call ? callTokens(plan.call) : 0) },
    };
    return { ok: true, value: { response } };
  },
  async stream(call, opts) {
    if (opts.signal.aborted) return clientGone();
    const req = call.request;
    const failed = demoFailure(req);
    if (failed) return failed;
    return { ok: true, value: demoStream(planDemoReply(req), estimatePromptTokens(req), call.publicModel, opts.signal) };
  },
};

/** The demo's events, paced like a model's (a module-level generator: text-http-call.ts `chunks` says why). */
async function* demoStream(plan: DemoPlan, inputTokens: number, model: string, signal: AbortSignal): AsyncGenerator<UpstreamChunk> {
  yield { events: [{ type: "start", id: `demo-${randomBase62(16)}`, model, inputTokens }] };
  let out = 0;
  for (const w of plan.words) {
    await sleep(plan.delayMs, signal);
    out++;
    yield { events: [{ type: "text_delta", text: w }, { type: "usage", usage: { outputTokens: out } }] };
  }
  if (plan.call) {
    const events: StreamEvent[] = [
      { type: "tool_call_start", index: 0, id: `call_${randomBase62(24)}`, name: plan.call.name },
      { type: "tool_call_delta", index: 0, arguments: plan.call.arguments },
    ];
    out += callTokens(plan.call);
    yield { events };
  }
  yield { events: [{ type: "done", stopReason: plan.stopReason, stopSequence: plan.stopSequence, usage: { inputTokens, outputTokens: out } }] };
}
