/**
 * applyConfigIfChanged (decision 0044): a serverless cold start or the build step applies the
 * config only when it differs from the one applied last.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../../db/testing";
import { models } from "../../db/schema";
import { applyConfigIfChanged } from "./apply";
import { demoCatalog } from "./demo-catalog";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t.close();
});

describe("the config applied once per change", () => {
  it("applies a new config, skips the same one, applies a changed one", async () => {
    expect(await applyConfigIfChanged(t.db, demoCatalog, "demo")).toBe(true);
    expect(await applyConfigIfChanged(t.db, demoCatalog, "demo")).toBe(false);
    const changed = { ...demoCatalog, models: demoCatalog.models.map((m) => (m.id === "demo-embed" ? { ...m, price: { inputPerMTok: 0.05 } } : m)) };
    expect(await applyConfigIfChanged(t.db, changed, "demo")).toBe(true);
    const [row] = await t.db.select({ price: models.price }).from(models).where(eq(models.modelId, "demo-embed"));
    expect(row!.price).toMatchObject({ inputPerMTok: 50_000 });
    expect(await applyConfigIfChanged(t.db, changed, "demo")).toBe(false);
  });
});
