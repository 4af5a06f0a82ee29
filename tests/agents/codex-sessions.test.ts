/**
 * The real Codex CLI in the two session features of issue 35, with the books checked (one charge
 * per upstream answer, balance = ledger, nothing held):
 * - `supports_websockets = true`: its tool task over the gateway's Responses WebSocket transport
 *   (warm-up, then turns chained with `previous_response_id` on one socket) on converted
 *   upstreams (Anthropic, Gemini) and a same-protocol one (OpenAI Responses); the socket
 *   counters in /metrics prove the transport was used.
 * - server-side compaction: past a tiny `model_auto_compact_token_limit` Codex sends a
 *   `compaction_trigger` mid-task; the gateway's compaction item is accepted, and the task goes
 *   on from the summary, on Anthropic, OpenAI chat and Gemini upstreams.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentFakes, type AgentFake, type AgentFakes } from "../fakes/agent-upstreams";
import { createAccount } from "../support/accounts";
import { idleBooks } from "../support/books";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";
import { AGENT_MODELS, AGENT_PRICE_USD, agentGatewayConfig } from "./agent-config";
import { runCli } from "./cli-runners";
import { startTrapProxy, type TrapProxy } from "./trap-proxy";

const METRICS_TOKEN = "metrics-token-for-websocket-test";
let server: TestServer;
let trap: TrapProxy;
let fakes: AgentFakes;

beforeAll(async () => {
  trap = await startTrapProxy();
  fakes = await startAgentFakes();
  server = await startTestServer({ config: agentGatewayConfig(fakes), env: { METRICS_TOKEN } });
});
afterAll(async () => {
  await server?.dispose();
  for (const f of Object.values(fakes ?? {})) await f.close();
  await trap?.close();
});

async function counter(name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : 0;
}

type Kind = "anthropic" | "openai" | "gemini" | "responses";

/** Codex's tool task through the gateway; checks the file, the answer, refusals, the trap and the books. */
async function codexTask(kind: Kind, opts: { websockets?: boolean; remoteCompactAt?: number }, check: (fake: AgentFake) => Promise<void>) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "agent-home-"));
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-work-"));
  const task = { dir: workdir, file: "hello.txt", content: `Hello from codex via ${kind}\n`, answer: "Done: hello.txt written for codex." };
  for (const f of Object.values(fakes)) {
    f.reset();
    f.task = task;
  }
  const { email, key } = await createAccount(server, { usd: 5 });
  const r = await runCli({ cli: "codex", gateway: server.url, key, model: AGENT_MODELS[kind].codexId, home, workdir, prompt: `Create the file hello.txt containing exactly: ${task.content.trim()}`, timeoutMs: 60_000, proxy: trap.url, ...opts });
  try {
    expect({ code: r.code, timedOut: r.timedOut, stderr: r.code === 0 ? "" : r.stderr.slice(-400) }).toEqual({ code: 0, timedOut: false, stderr: "" });
    expect(fs.readFileSync(path.join(workdir, task.file), "utf8")).toBe(task.content);
    expect(r.stdout).toContain(task.answer);
    const fake = fakes[kind];
    expect(fake.requests.filter((q) => q.refused)).toEqual([]);
    const answered = fake.requests.filter((q) => q.answered);
    expect(answered.length).toBeGreaterThanOrEqual(2);
    const expected = answered.reduce((sum, q) => sum + q.answered!.usage!.input * AGENT_PRICE_USD.inputPerMTok + q.answered!.usage!.output * AGENT_PRICE_USD.outputPerMTok, 0);
    expect(await idleBooks(server, email)).toMatchObject({ balance: 5_000_000 - expected, ledger: 5_000_000 - expected, held: 0, holds: 0 });
    expect(trap.attempts.splice(0)).toEqual([]);
    await check(fake);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(workdir, { recursive: true, force: true });
  }
}

describe.skipIf(!usesPostgres())("Codex over the Responses WebSocket", () => {
  it.each(["anthropic", "gemini", "responses"] as const)("does its tool task on a %s upstream, books checked", async (kind) => {
    const sockets = await counter("gateway_responses_websockets_total");
    const frames = await counter("gateway_responses_websocket_frames_total");
    await codexTask(kind, { websockets: true }, async () => {
      expect(await counter("gateway_responses_websockets_total")).toBeGreaterThan(sockets);
      // The warm-up and both turns came as frames (the tool call and the answer).
      expect((await counter("gateway_responses_websocket_frames_total")) - frames).toBeGreaterThanOrEqual(3);
    });
  });
});

describe.skipIf(!usesPostgres())("Codex compacting on the server", () => {
  it.each(["anthropic", "openai", "gemini"] as const)("compacts mid-task on a %s upstream and finishes from the summary, books checked", async (kind) => {
    await codexTask(kind, { remoteCompactAt: 100 }, async (fake) => {
      const bodies = fake.requests.map((q) => JSON.stringify(q.body));
      const summarising = bodies.findIndex((b) => b.includes("Compact the conversation above"));
      expect(summarising).toBeGreaterThan(0); // after the tool call, before the answer
      // The turn after it reads the summary (expanded from the item Codex sent back), not the blob.
      const after = bodies.slice(summarising + 1);
      expect(after.some((b) => b.includes("Summary of the earlier part of this conversation (compacted)"))).toBe(true);
      expect(after.some((b) => b.includes("gwc1."))).toBe(false);
    });
  });
});
