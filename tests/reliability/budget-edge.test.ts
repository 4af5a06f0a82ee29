/**
 * At a budget's edge the refusal names the budget, always (docs/reliability.md, "Budget edge"):
 * an organisation with $40 of balance and a daily budget of a few dollars' worth of holds; 70
 * parallel requests over three keys on two instances, several rounds. Every 402 must be
 * `budget_exceeded`; an "Insufficient balance … available" (the balance never bound) was the
 * intermittent bug (1–3 per run).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "../console-helpers";
import { startFaultUpstream, type FaultUpstream } from "../fakes/fault-upstream";
import { adminOk, createKey } from "../support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

let a: TestServer;
let b: TestServer;
let up: FaultUpstream;
let owner: Session;
const keys: string[] = [];

beforeAll(async () => {
  if (!usesPostgres()) throw new Error("this test needs PostgreSQL (DATABASE_URL)");
  up = await startFaultUpstream("sk-budget-edge-upstream");
  up.delayMs = 30;
  // Each request holds about $0.03 (its prompt bound at $1000/MTok and 1000 output tokens at $10/MTok) and is charged about $0.005.
  const config = {
    upstreams: [{ id: "u", protocol: "openai", baseUrl: `${up.url}/v1`, apiKey: up.key }],
    models: [{ id: "edge-chat", kind: "text", upstream: "u", price: { inputPerMTok: 1000, outputPerMTok: 10 } }],
  };
  const env = { DEFAULT_KEY_RPM: "100000" };
  a = await startTestServer({ config, env });
  b = await startTestServer({ config, env, shareWith: a });
  await signUp(a); // the instance's admin
  owner = await signUp(a);
  await adminOk(a, "credit", "--email", owner.email, "--usd", "40");
  for (let i = 0; i < 3; i++) keys.push(await createKey(a, owner.email));
}, 240_000);
afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
  await up?.close();
});

async function chat(server: TestServer, key: string) {
  const r = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "edge-chat", max_tokens: 1000, messages: [{ role: "user", content: "hi" }] }),
  });
  const body = (await r.json()) as { error?: { code: string; message: string } };
  return { status: r.status, code: body.error?.code, message: body.error?.message };
}

describe("a budget's edge under parallel requests", () => {
  it("every refusal names the budget, never the balance", async () => {
    const results: Awaited<ReturnType<typeof chat>>[] = [];
    for (let round = 0; round < 12; round++) {
      // A fresh daily budget a little above what is spent, so about half of the 70 holds fit.
      const spent = (await owner.json("/api/console/orgs/budgets")).body.items.find((x: { scope: string }) => x.scope === "organisation")?.spentMicroUsd ?? 0;
      const limitUsd = ((spent + 300_000) / 1_000_000).toFixed(6);
      const set = await owner.json("/api/console/orgs/budgets", { method: "POST", body: { scope: "organisation", period: "day", limitUsd } });
      expect(set.status).toBe(200);
      results.push(...(await Promise.all(Array.from({ length: 70 }, (_, i) => chat(i % 2 ? b : a, keys[i % 3]!)))));
    }
    const refused = results.filter((r) => r.status === 402);
    const wrong = refused.filter((r) => r.code !== "budget_exceeded");
    console.log(`budget edge: ${results.length} requests, ${results.filter((r) => r.status === 200).length} served, ${refused.length} refused, ${wrong.length} naming something else${wrong[0] ? ` (${wrong[0].code}: ${wrong[0].message})` : ""}`);
    expect(refused.length).toBeGreaterThan(0);
    expect(results.every((r) => r.status === 200 || r.status === 402)).toBe(true);
    expect(wrong).toEqual([]);
  }, 180_000);
});
