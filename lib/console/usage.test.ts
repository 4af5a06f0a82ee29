/** The Usage page's numbers on a real database: every token class, and what prompt caching saved per day and model. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/client";
import { accounts, requestLogs } from "../../db/schema";
import { createTestDb } from "../../db/testing";
import { newId } from "../ids";
import { dailySpendByModel, listRequests, requestsCsv, usageTotals } from "./usage";

let db: DB;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await createTestDb()));
afterAll(() => close());

// Snapshots as settled requests record them: every class price, the fallbacks resolved.
const SONNET = { inputPerMTok: 3_000_000, outputPerMTok: 15_000_000, cacheReadPerMTok: 300_000, cacheWrite5mPerMTok: 3_750_000, cacheWrite1hPerMTok: 6_000_000, reasoningPerMTok: 15_000_000 };
const NO_CACHE_PRICE = { inputPerMTok: 2_000_000, outputPerMTok: 8_000_000, cacheReadPerMTok: 2_000_000, cacheWrite5mPerMTok: 2_000_000, cacheWrite1hPerMTok: 2_000_000, reasoningPerMTok: 8_000_000 };

async function row(accountId: string, v: Partial<typeof requestLogs.$inferInsert>) {
  await db.insert(requestLogs).values({ requestId: newId("request"), accountId, method: "POST", route: "/v1/messages", status: 200, settlement: "completed", ...v });
}

describe("usage with token classes", () => {
  it("totals every class, shows what caching saved per day and model, at each request's own snapshot", async () => {
    const accountId = newId("account");
    await db.insert(accounts).values({ id: accountId, name: accountId });
    const day1 = new Date("2026-11-20T10:00:00Z");
    const day2 = new Date("2026-11-21T10:00:00Z");
    // 1,000,000 reads at 3 − 0.3 USD/M saved 2.70 USD; a later price edit (the second row's snapshot) does not rewrite the first.
    await row(accountId, { model: "claude", createdAt: day1, inputTokens: 1_200_000, outputTokens: 10, cacheReadTokens: 1_000_000, cacheWrite1hTokens: 100_000, reasoningTokens: 4, costMicroUsd: 1_500_000, priceSnapshot: SONNET });
    await row(accountId, { model: "claude", createdAt: day2, inputTokens: 10, outputTokens: 1, cacheReadTokens: 7, costMicroUsd: 20, priceSnapshot: { ...SONNET, cacheReadPerMTok: 1_000_000 } });
    // No cache price: reads cost the input price, nothing saved.
    await row(accountId, { model: "gpt", createdAt: day2, inputTokens: 5_000, outputTokens: 5, cacheReadTokens: 4_000, costMicroUsd: 10_040, priceSnapshot: NO_CACHE_PRICE });
    // A row before the classes existed (no snapshot): nothing saved, nothing broken.
    await row(accountId, { model: "old", createdAt: day2, inputTokens: 3, outputTokens: 3, costMicroUsd: 9 });
    // A response-cache hit: $0, and what the cached answer cost, apart from prompt caching's savings.
    await row(accountId, { model: "gpt", createdAt: day2, settlement: "cache_hit", costMicroUsd: 0, savedMicroUsd: 10_040 });

    const f = { from: "2026-11-19", to: "2026-11-22" };
    const totals = await usageTotals(db, accountId, f);
    // 2,700,000 + floor(7 × 2) = 14 (rounded down per request)
    expect(totals).toMatchObject({ cacheReadTokens: 1_004_007, cacheWriteTokens: 100_000, reasoningTokens: 4, cacheSavedMicroUsd: 2_700_014, responseCacheSavedMicroUsd: 10_040 });
    const daily = await dailySpendByModel(db, accountId, f);
    expect(daily.map((d) => [d.day, d.model, d.savedMicroUsd])).toEqual(
      expect.arrayContaining([["2026-11-20", "claude", 2_700_000], ["2026-11-21", "claude", 14], ["2026-11-21", "gpt", 0], ["2026-11-21", "old", 0]]),
    );
    const page = await listRequests(db, accountId, f);
    expect(page.items.find((r) => r.model === "claude" && r.cacheWrite1hTokens === 100_000)).toMatchObject({ cacheReadTokens: 1_000_000, reasoningTokens: 4 });
    const csv = await requestsCsv(db, accountId, f);
    const [header, ...lines] = csv.trim().split(/\r?\n/);
    expect(header).toContain("cache_read_tokens,cache_write_5m_tokens,cache_write_1h_tokens,reasoning_tokens,usage_note");
    expect(lines.some((l) => l.includes(",1000000,0,100000,4,"))).toBe(true);
  });
});
