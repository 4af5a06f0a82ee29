/**
 * Fake upstreams for the coding-agent matrix: the text fakes (same wire formats) scripted for one
 * small tool task and enforcing the vendors' documented refusals on every request.
 *
 * The task: the model's first answer calls the client's own file-writing tool (whichever of
 * Claude Code `Write`, Gemini CLI `write_file`, opencode `write` or Codex `apply_patch` the request
 * offers) to write `task.file` with `task.content`; once the tool result comes back it answers
 * `task.answer`. Requests without a writing tool (titles) get a short text; a summary (tools
 * turned off) or a context already holding the answer (a compacted one) gets the answer. Every
 * answer reports its own usage so the test can check the books per upstream answer.
 *
 * Refusals (the message texts are the vendors' own):
 * - Anthropic: `tool_use` without its `tool_result` in the next user message (and the reverse);
 *   with thinking on, an assistant tool turn must start with the thinking block, its signature
 *   exactly as issued; `context_management` needs `anthropic-beta: context-management-…`;
 *   Claude 4.5-class models refuse `temperature` together with `top_p`.
 * - OpenAI chat: every `tool_calls` id answered by a `tool` message right after, and no `tool`
 *   message without its call.
 * - Gemini: a function response turn right after its function call turn, one response per call;
 *   Gemini 3 models refuse a replayed `functionCall` of the current turn without the
 *   `thoughtSignature` they issued (or Google's documented placeholder).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { anthropicProtocol } from "./anthropic-upstream";
import { geminiProtocol } from "./gemini-upstream";
import { chatProtocol } from "./openai-upstream";
import { DEFAULT_SCRIPT, startFake, type FakeTextUpstream, type Protocol, type TextScript } from "./text-fake-core";

export interface AgentTask {
  /** Absolute path of the client's working directory. */
  dir: string;
  /** File name to write, relative to dir. */
  file: string;
  content: string;
  /** The model's final answer. */
  answer: string;
  /**
   * An image file to look at first, through the client's own file-reading tool (a screenshot
   * read through a tool): the write follows once an image came back (the client may re-encode it).
   */
  image?: string;
}

export interface AgentFake extends FakeTextUpstream {
  task: AgentTask | null;
  /** What a request outside the task (a title, or any with no task set) is answered (default "Fake title"). */
  idleText?: string;
  /** Tool names offered by the last request that had tools (to report what the client sent). */
  offeredTools: string[];
}

type Refusal = { status: number; message: string } | null;
const bad = (message: string): Refusal => ({ status: 400, message });

/** Tools the CLIs write files with, in order of preference, and their argument shapes. */
const WRITERS = ["Write", "write_file", "write", "apply_patch", "exec_command", "shell"];

/** Tools the CLIs read files (images included) with; the path argument is the first of PATH_ARGS their schema has. */
export const READERS = ["Read", "read_file", "read", "view_image"];
const PATH_ARGS = ["file_path", "absolute_path", "filePath", "path"];

/** Inline image data in any vendor's request shape. */
export const INLINE_IMAGE = /"(?:media_type|mimeType)":"image\/|data:image\//;

/** Marks a Responses `custom` (freeform) tool in Turn.tools. */
const CUSTOM = Symbol("custom");

function writerArgs(name: string, task: AgentTask, schema: any): string {
  const abs = `${task.dir}/${task.file}`;
  if (name === "Write" || name === "write_file") return JSON.stringify({ file_path: abs, content: task.content });
  if (name === "write") return JSON.stringify({ filePath: abs, content: task.content });
  // Codex's shell tools (its fallback tool set for model ids it does not know has no apply_patch).
  const printf = `printf '%s' '${task.content.replace(/'/g, "'\\''")}' > '${abs}'`;
  if (name === "exec_command") return JSON.stringify({ cmd: printf });
  if (name === "shell") return JSON.stringify({ command: ["bash", "-lc", printf] });
  // apply_patch: Codex's freeform patch language; as a function, its one string parameter.
  const patch = `*** Begin Patch\n*** Add File: ${task.file}\n${task.content
    .replace(/\n$/, "") // each "+" line is one line of the file, newline included
    .split("\n")
    .map((l) => `+${l}`)
    .join("\n")}\n*** End Patch\n`;
  if (schema === CUSTOM) return patch; // a Responses custom tool takes the raw text
  const props = Object.keys(schema?.properties ?? {});
  return JSON.stringify({ [props[0] ?? "input"]: patch });
}

let counter = 0;
const nextId = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;
/** Signatures are opaque base64 blobs, as both vendors send them. */
const signature = () => randomBytes(48).toString("base64");

interface Turn {
  /** The last message is a tool result. */
  afterTool: boolean;
  /** Offered tools: name → parameter schema. */
  tools: Map<string, any>;
  /** The request body (an image task looks for the image and the write in it). */
  body: unknown;
}

function readerPath(schema: any): string {
  const props = Object.keys(schema?.properties ?? {});
  return PATH_ARGS.find((a) => props.includes(a)) ?? "file_path";
}

/** Tool calls turned off, in each vendor's words (`none` / `NONE`). */
function toolsOff(body: any): boolean {
  return body?.tool_choice === "none" || body?.tool_choice?.type === "none" || body?.toolConfig?.functionCallingConfig?.mode === "NONE";
}

function decide(base: TextScript, fake: AgentFake, turn: Turn, n: number, extra: Partial<TextScript> = {}): TextScript {
  const usage = { input: 200 + n, output: 10 + n };
  if (turn.tools.size) fake.offeredTools = [...turn.tools.keys()];
  const task = fake.task;
  const writer = WRITERS.find((w) => turn.tools.has(w));
  const reader = READERS.find((r) => turn.tools.has(r));
  // A summary (tools off) or a context that already says the work is done (a compacted one) ends the task.
  const done = !!task && (toolsOff(turn.body) || JSON.stringify(turn.body).includes(task.answer));
  if (task?.image && writer && reader && !done) {
    const sent = JSON.stringify(turn.body);
    // First the read; once an image came back (in whatever form the upstream takes it), the write.
    if (!INLINE_IMAGE.test(sent))
      return { ...base, text: "", toolCalls: [{ name: reader, arguments: JSON.stringify({ [readerPath(turn.tools.get(reader))]: `${task.dir}/${task.image}` }), id: "" }], usage, ...extra };
    if (!sent.includes(`${task.dir}/${task.file}`)) return { ...base, text: "", toolCalls: [{ name: writer, arguments: writerArgs(writer, task, turn.tools.get(writer)), id: "" }], usage, ...extra };
  }
  if (!task || turn.afterTool || !writer || done) return { ...base, text: (turn.afterTool || done) && task ? task.answer : (fake.idleText ?? "Fake title"), toolCalls: [], usage, ...extra };
  return { ...base, text: "", toolCalls: [{ name: writer, arguments: writerArgs(writer, task, turn.tools.get(writer)), id: "" }], usage, ...extra };
}

// ── Anthropic Messages ──────────────────────────────────────────────────────────────────────

const blocks = (m: any): any[] => (typeof m?.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m?.content) ? m.content : []);
const header = (req: IncomingMessage, name: string) => [req.headers[name]].flat().filter(Boolean).join(",");

function anthropicRefusal(req: IncomingMessage, body: any, signatures: Map<string, string>): Refusal {
  if (!req.headers["anthropic-version"]) return bad("anthropic-version: header is required");
  if (typeof body?.max_tokens !== "number") return bad("max_tokens: Field required");
  const betas = header(req, "anthropic-beta");
  if (body.context_management !== undefined && !/context-management-/.test(betas)) return bad("context_management: Extra inputs are not permitted");
  if (/claude-(sonnet|opus|haiku)-4-5/.test(body.model) && body.temperature !== undefined && body.top_p !== undefined)
    return bad("`temperature` and `top_p` cannot both be specified for this model. Please use only one.");
  const thinking = body.thinking?.type === "enabled" || body.thinking?.type === "adaptive";
  if (body.thinking?.type === "enabled" && !(body.thinking.budget_tokens < body.max_tokens))
    return bad("`max_tokens` must be greater than `thinking.budget_tokens`.");
  const messages: any[] = body.messages ?? [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const uses = blocks(m).filter((b) => b.type === "tool_use").map((b) => b.id as string);
    const results = blocks(m).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id as string);
    if (m.role === "assistant" && uses.length) {
      const answered = new Set(blocks(messages[i + 1]).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id));
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length)
        return bad(`messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
    }
    if (m.role === "user" && results.length) {
      const prev = new Set(messages[i - 1]?.role === "assistant" ? blocks(messages[i - 1]).filter((b) => b.type === "tool_use").map((b) => b.id) : []);
      const stray = results.find((id) => !prev.has(id));
      if (stray) return bad(`messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
    }
    for (const b of blocks(m)) {
      if (b.type === "thinking" && signatures.get(b.signature) !== b.thinking) return bad(`messages.${i}.content: Invalid \`signature\` in \`thinking\` block`);
    }
  }
  // With thinking on, the assistant turn that called the tool being answered starts with its thinking.
  const last = messages.at(-1);
  if (thinking && last?.role === "user" && blocks(last).some((b) => b.type === "tool_result")) {
    const prev = messages.at(-2);
    const first = blocks(prev)[0];
    if (first && first.type !== "thinking" && first.type !== "redacted_thinking")
      return bad(
        `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns.`,
      );
  }
  return null;
}

// ── OpenAI chat completions ─────────────────────────────────────────────────────────────────

function chatRefusal(body: any): Refusal {
  const messages: any[] = body?.messages ?? [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length) {
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j].role === "tool"; j++) answered.add(messages[j].tool_call_id);
      const missing = m.tool_calls.map((c: any) => c.id).filter((id: string) => !answered.has(id));
      if (missing.length)
        return bad(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`);
    }
    if (m.role === "tool") {
      let j = i - 1;
      while (j >= 0 && messages[j].role === "tool") j--;
      const calls = new Set((messages[j]?.role === "assistant" ? (messages[j].tool_calls ?? []) : []).map((c: any) => c.id));
      if (!calls.has(m.tool_call_id)) return bad(`Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`);
    }
  }
  return null;
}

// ── Gemini generateContent ──────────────────────────────────────────────────────────────────

/** Google's documented placeholders for calls whose signature is unknown. */
const SIGNATURE_PLACEHOLDERS = new Set(["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"]);
const parts = (c: any): any[] => (Array.isArray(c?.parts) ? c.parts : []);

function geminiRefusal(body: any, model: string, signatures: Set<string>): Refusal {
  const contents: any[] = body?.contents ?? [];
  for (let i = 0; i < contents.length; i++) {
    const calls = parts(contents[i]).filter((p) => p.functionCall).length;
    const responses = parts(contents[i]).filter((p) => p.functionResponse).length;
    if (responses && !parts(contents[i - 1]).some((p) => p.functionCall))
      return bad("Please ensure that function response turn comes immediately after a function call turn.");
    if (calls && i + 1 < contents.length && parts(contents[i + 1]).filter((p) => p.functionResponse).length !== calls)
      return bad("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.");
  }
  if (!/^gemini-3/.test(model)) return null;
  // The current turn: everything after the last user content that is not only function responses.
  let start = 0;
  contents.forEach((c, i) => {
    if (c.role !== "model" && parts(c).some((p) => !p.functionResponse)) start = i + 1;
  });
  for (let i = start; i < contents.length; i++) {
    if (contents[i].role !== "model") continue;
    const ps = parts(contents[i]);
    const k = ps.findIndex((p) => p.functionCall);
    if (k < 0) continue; // only the first call of each step carries the signature
    const sig = ps[k].thoughtSignature;
    if (!sig)
      return bad(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`${ps[k].functionCall.name}\` , position ${k + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    if (!signatures.has(sig) && !SIGNATURE_PLACEHOLDERS.has(sig)) return bad("Corrupted thought signature.");
  }
  return null;
}

function geminiTools(body: any): Map<string, any> {
  const out = new Map<string, any>();
  for (const t of body?.tools ?? []) for (const f of t.functionDeclarations ?? []) out.set(f.name, f.parameters ?? f.parametersJsonSchema);
  return out;
}

// ── OpenAI Responses ────────────────────────────────────────────────────────────────────────

/** Every call item answered by its output item (and no output without its call), as OpenAI checks. */
function responsesRefusal(body: any): Refusal {
  const items: any[] = Array.isArray(body?.input) ? body.input : [];
  const calls = new Set(items.filter((i) => i.type === "function_call" || i.type === "custom_tool_call").map((i) => i.call_id));
  const outputs = new Set(items.filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output").map((i) => i.call_id));
  for (const id of outputs) if (!calls.has(id)) return bad(`No tool call found for function call output with call_id ${id}.`);
  for (const id of calls) if (!outputs.has(id)) return bad(`No tool output found for function call ${id}.`);
  return null;
}

const rEv = (seq: { n: number }, type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq.n++, ...data })}\n\n`;

/**
 * Server-side compaction as OpenAI does it: a `compaction_trigger` last in the input is answered
 * with exactly one `compaction` item, its `encrypted_content` opaque (here: the summary, encoded);
 * sent back as input, the fake reads the summary from it again.
 */
const COMPACTED = "enc:agent-responses:";
const isTrigger = (body: any) => Array.isArray(body?.input) && body.input.at(-1)?.type === "compaction_trigger";
function compactionItem(body: any, task: AgentTask | null): Record<string, unknown> {
  const done = !!task && JSON.stringify(body.input).match(/function_call_output|custom_tool_call_output/);
  const summary = `The user asked for ${task?.file ?? "a task"}. ${done ? `It is written. ${task!.answer}` : "Nothing done yet."}`;
  return { id: `cmp_${nextId()}`, type: "compaction", encrypted_content: COMPACTED + Buffer.from(summary).toString("base64") };
}
/** The input as the model reads it: our compaction items opened to their summary. */
function readCompactions(body: any): any {
  if (!Array.isArray(body?.input)) return body;
  const input = body.input.map((it: any) =>
    it?.type === "compaction" && String(it.encrypted_content).startsWith(COMPACTED)
      ? { type: "message", role: "user", content: [{ type: "input_text", text: Buffer.from(it.encrypted_content.slice(COMPACTED.length), "base64").toString() }] }
      : it,
  );
  return { ...body, input };
}

function responsesOutput(s: TextScript, custom: Set<string>): Record<string, unknown>[] {
  if (s.compaction) return [s.compaction];
  const items: Record<string, unknown>[] = [];
  if (s.text) items.push({ id: `msg_${nextId()}`, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: s.text, annotations: [], logprobs: [] }] });
  for (const t of s.toolCalls)
    items.push(
      custom.has(t.name)
        ? { id: `ctc_${nextId()}`, type: "custom_tool_call", status: "completed", call_id: t.id, name: t.name, input: t.arguments }
        : { id: `fc_${nextId()}`, type: "function_call", status: "completed", call_id: t.id, name: t.name, arguments: t.arguments },
    );
  return items;
}

function responsesObject(body: any, id: string, status: string, output: unknown[], s: TextScript | null) {
  return {
    id, object: "response", created_at: 1741476542, status, error: null, incomplete_details: null, model: body.model, output,
    parallel_tool_calls: body.parallel_tool_calls ?? true, tool_choice: body.tool_choice ?? "auto", tools: body.tools ?? [], store: false,
    usage: s?.usage ? { input_tokens: s.usage.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: s.usage.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: s.usage.input + s.usage.output } : null,
  };
}

function responsesProtocol(custom: Set<string>): Protocol {
  return {
    match: (path, body) => (path === "/v1/responses" ? { stream: body?.stream === true } : null),
    keyOf: (req) => req.headers.authorization?.replace(/^Bearer /, ""),
    errorBody: (status, message) => ({ error: { message, type: status >= 500 ? "server_error" : "invalid_request_error", param: null, code: null } }),
    json: (s, body) => responsesObject(body, `resp_${nextId()}`, "completed", responsesOutput(s, custom), s),
    events: (s, body) => {
      const seq = { n: 0 };
      const id = `resp_${nextId()}`;
      const out = responsesOutput(s, custom);
      const events = [rEv(seq, "response.created", { response: responsesObject(body, id, "in_progress", [], null) })];
      out.forEach((item, index) => {
        if (item.type === "message") {
          const text = s.text;
          events.push(rEv(seq, "response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", content: [] } }));
          events.push(rEv(seq, "response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }));
          events.push(rEv(seq, "response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta: text, logprobs: [] }));
          events.push(rEv(seq, "response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] }));
          events.push(rEv(seq, "response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text, annotations: [] } }));
        } else if (item.type === "compaction") {
          events.push(rEv(seq, "response.output_item.added", { output_index: index, item }));
        } else if (item.type === "custom_tool_call") {
          events.push(rEv(seq, "response.output_item.added", { output_index: index, item: { ...item, input: "", status: "in_progress" } }));
          events.push(rEv(seq, "response.custom_tool_call_input.delta", { item_id: item.id, output_index: index, delta: item.input }));
          events.push(rEv(seq, "response.custom_tool_call_input.done", { item_id: item.id, output_index: index, input: item.input }));
        } else {
          events.push(rEv(seq, "response.output_item.added", { output_index: index, item: { ...item, arguments: "", status: "in_progress" } }));
          events.push(rEv(seq, "response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: item.arguments }));
          events.push(rEv(seq, "response.function_call_arguments.done", { item_id: item.id, output_index: index, arguments: item.arguments }));
        }
        events.push(rEv(seq, "response.output_item.done", { output_index: index, item }));
      });
      events.push(rEv(seq, "response.completed", { response: responsesObject(body, id, "completed", out, s) }));
      return events;
    },
    truncateAt: (events) => Math.max(1, events.length - 1),
  };
}

// ── Starting them ───────────────────────────────────────────────────────────────────────────

function agentFake(
  base: Protocol,
  key: string,
  suffix: string,
  make: (fake: () => AgentFake) => Pick<Protocol, "refuse" | "scriptFor">,
): Promise<AgentFake> {
  let self: AgentFake;
  const protocol: Protocol = { ...base, ...make(() => self) };
  return startFake(protocol, key, suffix).then((f) => {
    self = Object.assign(f, { task: null as AgentTask | null, offeredTools: [] as string[] });
    self.reset = ((reset) => (s?: Partial<TextScript>) => {
      reset(s);
      self.offeredTools = [];
    })(f.reset.bind(f));
    return self;
  });
}

export function startAgentAnthropic(key: string): Promise<AgentFake> {
  const signatures = new Map<string, string>();
  let n = 0;
  return agentFake(anthropicProtocol, key, "", (fake) => ({
    refuse: (req, body) => anthropicRefusal(req, body, signatures),
    scriptFor: (script, body) => {
      const last = body.messages?.at(-1);
      const turn: Turn = {
        afterTool: last?.role === "user" && blocks(last).some((b) => b.type === "tool_result"),
        tools: new Map((body.tools ?? []).filter((t: any) => t.name).map((t: any) => [t.name, t.input_schema])),
        body,
      };
      let thinking: TextScript["thinking"];
      if (body.thinking?.type === "enabled" || body.thinking?.type === "adaptive") {
        thinking = { thinking: `Thinking about step ${++n}.`, signature: signature() };
        signatures.set(thinking.signature, thinking.thinking);
      }
      const s = decide(script, fake(), turn, ++n, { thinking });
      return { ...s, toolCalls: s.toolCalls.map((t) => ({ ...t, id: `toolu_${nextId()}` })) };
    },
  }));
}

export function startAgentOpenAI(key: string): Promise<AgentFake> {
  let n = 0;
  return agentFake(chatProtocol, key, "/v1", (fake) => ({
    refuse: (_req, body) => chatRefusal(body),
    scriptFor: (script, body) => {
      const turn: Turn = {
        // A tool's images follow the tool messages in one user message.
        afterTool: body.messages?.at(-1)?.role === "tool" || (body.messages?.at(-1)?.role === "user" && body.messages?.at(-2)?.role === "tool"),
        tools: new Map((body.tools ?? []).filter((t: any) => t.type === "function").map((t: any) => [t.function.name, t.function.parameters])),
        body,
      };
      const s = decide(script, fake(), turn, ++n);
      return { ...s, toolCalls: s.toolCalls.map((t) => ({ ...t, id: `call_${nextId()}` })) };
    },
  }));
}

export function startAgentGemini(key: string): Promise<AgentFake> {
  const signatures = new Set<string>();
  let n = 0;
  const modelOf = (path: string) => decodeURIComponent(path.split("/models/")[1]?.split(":")[0] ?? "");
  return agentFake(geminiProtocol, key, "", (fake) => ({
    refuse: (_req, body, path) => geminiRefusal(body, modelOf(path), signatures),
    scriptFor: (script, body, path) => {
      const last = body.contents?.at(-1);
      const turn: Turn = { afterTool: parts(last).some((p) => p.functionResponse), tools: geminiTools(body), body };
      const s = decide(script, fake(), turn, ++n);
      const gemini3 = /^gemini-3/.test(modelOf(path));
      return {
        ...s,
        toolCalls: s.toolCalls.map((t) => {
          const sig = gemini3 ? signature() : undefined;
          if (sig) signatures.add(sig);
          return { name: t.name, arguments: t.arguments, signature: sig };
        }),
      };
    },
  }));
}

export function startAgentResponses(key: string): Promise<AgentFake> {
  let n = 0;
  const custom = new Set<string>();
  return agentFake(responsesProtocol(custom), key, "/v1", (fake) => ({
    refuse: (_req, body) => {
      const bad = (body?.input ?? []).find?.((it: any) => it?.type === "compaction" && !String(it.encrypted_content).startsWith(COMPACTED));
      if (bad) return { status: 400, message: `The encrypted content for item ${bad.id} could not be verified.` };
      if (Array.isArray(body?.input) && body.input.findIndex((it: any) => it?.type === "compaction_trigger") < body.input.length - 1 && body.input.some((it: any) => it?.type === "compaction_trigger"))
        return { status: 400, message: "Invalid 'input': a compaction_trigger must be the last input item." };
      return responsesRefusal(body);
    },
    scriptFor: (script, sent) => {
      if (isTrigger(sent)) return { ...script, text: "", toolCalls: [], usage: { input: 300, output: 40 }, compaction: compactionItem(sent, fake().task) };
      const body = readCompactions(sent);
      const items: any[] = Array.isArray(body.input) ? body.input : [];
      const tools = new Map<string, any>();
      for (const t of body.tools ?? []) {
        if (t.type === "function") tools.set(t.name, t.parameters);
        if (t.type === "custom") (tools.set(t.name, CUSTOM), custom.add(t.name));
      }
      const last = items.at(-1)?.type;
      const s = decide(script, fake(), { afterTool: last === "function_call_output" || last === "custom_tool_call_output", tools, body }, ++n);
      return { ...s, toolCalls: s.toolCalls.map((t) => ({ ...t, id: `call_${nextId()}` })) };
    },
  }));
}

export { DEFAULT_SCRIPT };

export type AgentFakes = { anthropic: AgentFake; openai: AgentFake; responses: AgentFake; gemini: AgentFake };

/** The four agent fakes the coding-agent tests serve their models from. */
export async function startAgentFakes(): Promise<AgentFakes> {
  return {
    anthropic: await startAgentAnthropic("sk-upstream-agent-anthropic"),
    openai: await startAgentOpenAI("sk-upstream-agent-openai"),
    responses: await startAgentResponses("sk-upstream-agent-responses"),
    gemini: await startAgentGemini("sk-upstream-agent-gemini"),
  };
}
