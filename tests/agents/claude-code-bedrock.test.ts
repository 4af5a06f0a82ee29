/**
 * Claude Code (the dev-dependency CLI, run offline as in cli-runners.ts) through the gateway to
 * Claude on Amazon Bedrock (issue 34): once through InvokeModel with Anthropic's own body (the
 * client's Messages requests passed through, thinking signatures and betas included) and once
 * through Converse (converted), against the fake Bedrock that verifies every SigV4 signature. The
 * CLI writes the file it was asked to, prints the answer, never leaves loopback, and the books
 * add up: one charge per Bedrock answer, tokens × price, balance = Σ ledger, nothing held.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BEDROCK_KEYS, BEDROCK_REGION, startFakeBedrock, type BedrockScript, type FakeBedrock } from "../fakes/bedrock-upstream";
import { createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";
import { runCli } from "./cli-runners";
import { startTrapProxy, type TrapProxy } from "./trap-proxy";

const PROFILE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
// Whole micro-dollars per token, so every charge is exact.
const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };
const CONTENT = "hello from bedrock";
const ANSWER = "The file is written.";

let fake: FakeBedrock;
let server: TestServer;
let trap: TrapProxy;
let workdir = "";

/** Converse and Anthropic bodies alike: the offered tool names, and whether the last turn returns a tool's result. */
function turnOf(body: any, api: "converse" | "invoke"): { tools: string[]; afterTool: boolean; toolsOff: boolean } {
  const last = body.messages?.at(-1);
  const parts: any[] = typeof last?.content === "string" ? [] : (last?.content ?? []);
  if (api === "invoke")
    return { tools: (body.tools ?? []).map((t: any) => t.name), afterTool: parts.some((p) => p.type === "tool_result"), toolsOff: body.tool_choice?.type === "none" };
  return { tools: (body.toolConfig?.tools ?? []).map((t: any) => t.toolSpec?.name), afterTool: parts.some((p) => p.toolResult), toolsOff: false };
}

let n = 0;
function brain(body: any, api: "converse" | "invoke"): BedrockScript {
  const t = turnOf(body, api);
  const usage = { inputTokens: 300 + ++n, outputTokens: 20 + n };
  if (t.tools.includes("Write") && !t.afterTool && !t.toolsOff && !JSON.stringify(body).includes(ANSWER))
    return { text: "", toolCall: { name: "Write", input: { file_path: path.join(workdir, "hello.txt"), content: CONTENT } }, usage };
  return { text: t.afterTool ? ANSWER : "Fake title", usage };
}

beforeAll(async () => {
  trap = await startTrapProxy();
  fake = await startFakeBedrock();
  fake.brain = brain;
  const upstream = (id: string, claudeApi: string) => ({ id, protocol: "bedrock", baseUrl: fake.baseUrl, region: BEDROCK_REGION, ...BEDROCK_KEYS, claudeApi, timeoutMs: 30_000 });
  server = await startTestServer({
    config: {
      upstreams: [upstream("br-invoke", "invoke"), upstream("br-converse", "converse")],
      models: [
        { id: "claude-bedrock-invoke", kind: "text", upstream: "br-invoke", upstreamModel: PROFILE, price: PRICE, maxOutputTokens: 32000, contextWindow: 200000 },
        { id: "claude-bedrock-converse", kind: "text", upstream: "br-converse", upstreamModel: PROFILE, price: PRICE, maxOutputTokens: 32000, contextWindow: 200000 },
      ],
    },
  });
});
afterAll(async () => {
  await server?.dispose();
  await fake?.close();
  await trap?.close();
});

describe.each([
  ["InvokeModel", "claude-bedrock-invoke", /\/invoke(-with-response-stream)?$/],
  ["Converse", "claude-bedrock-converse", /\/converse(-stream)?$/],
])("Claude Code through Bedrock %s", (_api, model, pathRe) => {
  it("writes the file, answers, stays on loopback, and every Bedrock answer is charged exactly once", async () => {
    fake.requests.length = 0;
    const { key, email } = await createAccount(server, { usd: 5 });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "cc-bedrock-home-"));
    workdir = fs.mkdtempSync(path.join(os.tmpdir(), "cc-bedrock-work-"));
    const r = await runCli({ cli: "claude", gateway: server.url, key, model, home, workdir, prompt: `Create the file hello.txt containing exactly: ${CONTENT}`, timeoutMs: 90_000, proxy: trap.url });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(fs.readFileSync(path.join(workdir, "hello.txt"), "utf8")).toBe(CONTENT);
    expect(r.stdout).toContain(ANSWER);
    expect(trap.attempts).toEqual([]);
    expect(fake.requests.length).toBeGreaterThanOrEqual(2);
    for (const q of fake.requests) {
      expect(q.signatureOk).toBe(true);
      expect(q.path).toMatch(pathRe);
    }
    if (model === "claude-bedrock-invoke") expect(fake.requests.every((q) => q.body.anthropic_version === "bedrock-2023-05-31" && !("model" in q.body))).toBe(true);
    if (!usesPostgres()) return;
    const expected = fake.requests.map((q) => q.answered!.inputTokens * PRICE.inputPerMTok + q.answered!.outputTokens * PRICE.outputPerMTok);
    const books = await idleBooks(server, email);
    const charges = await server.query<{ delta: string }>(
      `select l.delta_micro_usd as delta from ledger_entries l join users u on u.account_id = l.account_id where u.email = $1 and l.kind = 'charge' order by l.id`,
      [email],
    );
    expect(charges.map((c) => -Number(c.delta)).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(books).toMatchObject({ balance: books.ledger, held: 0, holds: 0 });
    expect(books.balance).toBe(5_000_000 - expected.reduce((a, b) => a + b, 0));
  }, 120_000);
});
