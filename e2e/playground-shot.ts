import fs from "node:fs";
import path from "node:path";
import type { Page, TestInfo } from "@playwright/test";

const DIR = path.resolve("test-results/screenshots");
let n = 0;

/**
 * A screenshot taken at once, under test-results/screenshots/pg-NN-name.png. Unlike e2e/shots.ts
 * it does not wait for the network to go idle: a streaming reply or a polling task card keeps
 * it busy, and the point is to capture them mid-way.
 */
export async function snap(page: Page, testInfo: TestInfo, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  fs.mkdirSync(DIR, { recursive: true });
  const file = path.join(DIR, `pg-${String(++n).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file, fullPage: opts.fullPage ?? true, animations: "allow" });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}
