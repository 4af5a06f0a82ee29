/**
 * Claude Code (the dev-dependency CLI, run offline as in cli-runners.ts) through the gateway to
 * the other clouds of issue 34 (Bedrock has its own file, claude-code-bedrock.test.ts):
 * - Claude on Vertex AI through the Anthropic publisher (rawPredict / streamRawPredict: the
 *   client's Messages requests passed through, `model` moved to the path), the token issued by
 *   the fake Google endpoint from the service account's RS256-signed JWT;
 * - Gemini 2.5 and Gemini 3 on Vertex AI (Messages converted to generateContent), the same token;
 *   Gemini 3's thought signature back on the replayed call (carried in the tool id the CLI echoes);
 * - a deployment on Azure OpenAI (Messages converted to chat completions, `api-key`).
 * Each cell: the CLI writes the file it was asked to, prints the answer, never leaves loopback,
 * and the books add up: one charge per upstream answer, tokens × price, balance = Σ ledger,
 * nothing held.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AZURE_DEPLOYMENT, AZURE_FAKE_KEY, startFakeAzureOpenAI } from "../fakes/azure-openai-upstream";
import type { FakeTextUpstream, TextScript } from "../fakes/text-fake-core";
import { serviceAccountKey, startFakeGoogleOAuth, startFakeVertex, VERTEX_PROJECT, VERTEX_REGION, VERTEX_TOKEN, type FakeGoogleOAuth } from "../fakes/vertex-upstream";
import { createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";
import { runCli } from "./cli-runners";
import { startTrapProxy, type TrapProxy } from "./trap-proxy";

// Whole micro-dollars per token, so every charge is exact.
const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };
const CONTENT = "hello from the cloud";
const ANSWER = "The file is written.";

let vertex: FakeTextUpstream;
let oauth: FakeGoogleOAuth;
let azure: FakeTextUpstream;
let server: TestServer;
let trap: TrapProxy;
let workdir = "";

/** What an agent's turn offers and returns, in each wire format the clouds speak. */
function turnOf(body: any): { tools: string[]; afterTool: boolean; toolsOff: boolean } {
  if (Array.isArray(body?.contents)) {
    const last = body.contents.at(-1);
    return {
      tools: (body.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => f.name)),
      afterTool: (last?.parts ?? []).some((p: any) => p.functionResponse),
      toolsOff: body.toolConfig?.functionCallingConfig?.mode === "NONE",
    };
  }
  const last = body?.messages?.at(-1);
  if (body?.anthropic_version !== undefined) {
    const parts: any[] = typeof last?.content === "string" ? [] : (last?.content ?? []);
    return { tools: (body.tools ?? []).map((t: any) => t.name), afterTool: parts.some((p) => p.type === "tool_result"), toolsOff: body.tool_choice?.type === "none" };
  }
  return { tools: (body?.tools ?? []).map((t: any) => t.function?.name), afterTool: last?.role === "tool", toolsOff: body?.tool_choice === "none" };
}

const GEMINI_SIGNATURE = Buffer.from("gemini-3-thought-signature-0123").toString("base64");
const SIGNATURE = Buffer.from("vertex-signed-thinking-0123456789").toString("base64");
let n = 0;
/** The task: call Write once, answer once its result is back; a title request (no tools) gets a title. */
function brain(script: TextScript, body: any, url = ""): TextScript {
  const t = turnOf(body);
  const usage = { input: 300 + ++n, output: 20 + n };
  const gemini = Array.isArray(body?.contents);
  if (t.tools.includes("Write") && !t.afterTool && !t.toolsOff && !JSON.stringify(body).includes(ANSWER)) {
    const args = JSON.stringify({ file_path: path.join(workdir, "hello.txt"), content: CONTENT });
    // Claude thinks first when asked (a signed block the next turn must echo exactly).
    const thinking = body.anthropic_version && /enabled|adaptive/.test(body.thinking?.type ?? "") ? { thinking: "Planning the write.", signature: SIGNATURE } : undefined;
    // Gemini on Vertex returns calls without ids (Gemini 3 signs them); the others issue one per call.
    const id = gemini ? {} : { id: `${body.anthropic_version ? "toolu" : "call"}_cloud${n}` };
    const signature = /gemini-3/.test(url) ? { signature: GEMINI_SIGNATURE } : {};
    return { ...script, text: "", thinking, toolCalls: [{ name: "Write", arguments: args, ...id, ...signature }], usage };
  }
  return { ...script, text: t.afterTool ? ANSWER : "Fake title", toolCalls: [], usage };
}

beforeAll(async () => {
  [trap, vertex, oauth, azure] = await Promise.all([
    startTrapProxy(),
    startFakeVertex({ scriptFor: brain }),
    startFakeGoogleOAuth(),
    startFakeAzureOpenAI({ auth: "api-key", scriptFor: brain }),
  ]);
  const model = (id: string, upstream: string, upstreamModel: string) => ({ id, kind: "text", upstream, upstreamModel, price: PRICE, maxOutputTokens: 32000, contextWindow: 200000 });
  server = await startTestServer({
    config: {
      upstreams: [
        { id: "vx", protocol: "vertex", baseUrl: vertex.baseUrl, project: VERTEX_PROJECT, region: VERTEX_REGION, serviceAccount: serviceAccountKey(oauth.tokenUrl), timeoutMs: 30_000 },
        { id: "az", protocol: "azure-openai", baseUrl: azure.baseUrl, apiKey: AZURE_FAKE_KEY, timeoutMs: 30_000 },
      ],
      models: [model("claude-vertex", "vx", "claude-sonnet-4-5@20250929"), model("gemini-vertex", "vx", "gemini-2.5-flash"), model("gemini-3-vertex", "vx", "gemini-3-pro-preview"), model("gpt-azure", "az", AZURE_DEPLOYMENT)],
    },
  });
});
afterAll(async () => {
  await server?.dispose();
  await Promise.all([vertex?.close(), oauth?.close(), azure?.close(), trap?.close()]);
});

const CELLS = [
  { cell: "Claude on Vertex (rawPredict)", model: "claude-vertex", fake: () => vertex, pathRe: /\/publishers\/anthropic\/models\/claude-sonnet-4-5(@|%40)20250929:(stream)?[rR]awPredict$/ },
  { cell: "Gemini on Vertex (generateContent)", model: "gemini-vertex", fake: () => vertex, pathRe: /\/publishers\/google\/models\/gemini-2\.5-flash:(generateContent|streamGenerateContent\?alt=sse)$/ },
  { cell: "Gemini 3 on Vertex (thought signatures)", model: "gemini-3-vertex", fake: () => vertex, pathRe: /\/publishers\/google\/models\/gemini-3-pro-preview:(generateContent|streamGenerateContent\?alt=sse)$/ },
  { cell: "Azure OpenAI (chat completions)", model: "gpt-azure", fake: () => azure, pathRe: /^\/openai\/v1\/chat\/completions$/ },
];

describe.each(CELLS)("Claude Code through $cell", ({ model, fake, pathRe }) => {
  it("writes the file, answers, stays on loopback, and every upstream answer is charged exactly once", async () => {
    const f = fake();
    f.requests.length = 0;
    const { key, email } = await createAccount(server, { usd: 5 });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "cc-cloud-home-"));
    workdir = fs.mkdtempSync(path.join(os.tmpdir(), "cc-cloud-work-"));
    const r = await runCli({ cli: "claude", gateway: server.url, key, model, home, workdir, prompt: `Create the file hello.txt containing exactly: ${CONTENT}`, timeoutMs: 60_000, proxy: trap.url });
    expect(r.code, `${r.stdout}\n${r.stderr}\n${JSON.stringify(f.requests.filter((q) => q.refused).map((q) => q.refused))}`).toBe(0);
    expect(fs.readFileSync(path.join(workdir, "hello.txt"), "utf8")).toBe(CONTENT);
    expect(r.stdout).toContain(ANSWER);
    expect(trap.attempts).toEqual([]);
    expect(f.requests.length).toBeGreaterThanOrEqual(2);
    for (const q of f.requests) {
      expect(q.path).toMatch(pathRe);
      expect(q.refused).toBeUndefined();
      expect(q.answered).toBeTruthy();
    }
    if (model === "gpt-azure") expect(f.requests.every((q) => q.headers["api-key"] === AZURE_FAKE_KEY && q.body.model === AZURE_DEPLOYMENT)).toBe(true);
    else {
      expect(f.requests.every((q) => q.headers.authorization === `Bearer ${VERTEX_TOKEN}`)).toBe(true);
      // Every token the gateway used came from a verified assertion.
      expect(oauth.requests.length).toBeGreaterThanOrEqual(1);
      expect(oauth.requests.every((q) => q.accepted)).toBe(true);
    }
    if (model === "claude-vertex") {
      expect(f.requests.every((q) => q.body.anthropic_version === "vertex-2023-10-16" && !("model" in q.body))).toBe(true);
      // The signed thinking block came back to Vertex as issued (the Messages body passes through).
      const replayed = f.requests.at(-1)!.body.messages.flatMap((m: any) => (m.role === "assistant" && Array.isArray(m.content) ? m.content : []));
      if (f.requests[0]!.body.thinking) expect(replayed[0]).toMatchObject({ type: "thinking", signature: SIGNATURE });
    }
    if (model === "gemini-3-vertex") {
      // The call's signature went back to Vertex on the replayed functionCall (carried in the tool id Claude Code echoed).
      const replayed = f.requests.at(-1)!.body.contents.flatMap((c: any) => c.parts ?? []).find((p: any) => p.functionCall);
      expect(replayed).toMatchObject({ functionCall: { name: "Write" }, thoughtSignature: GEMINI_SIGNATURE });
    }
    if (!usesPostgres()) return;
    const expected = f.requests.map((q) => q.answered!.usage!.input * PRICE.inputPerMTok + q.answered!.usage!.output * PRICE.outputPerMTok);
    const books = await idleBooks(server, email);
    const charges = await server.query<{ delta: string }>(
      `select l.delta_micro_usd as delta from ledger_entries l join users u on u.account_id = l.account_id where u.email = $1 and l.kind = 'charge' order by l.id`,
      [email],
    );
    expect(charges.map((c) => -Number(c.delta)).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(books).toMatchObject({ balance: books.ledger, held: 0, holds: 0 });
    expect(books.balance).toBe(5_000_000 - expected.reduce((a, b) => a + b, 0));
  }, 90_000);
});
