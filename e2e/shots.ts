import fs from "node:fs";
import path from "node:path";
import type { Page, TestInfo } from "@playwright/test";

const DIR = path.resolve("test-results/screenshots");
let n = 0;

/** A full-page screenshot (or the window only: drawers are fixed to it) under test-results/screenshots/, also attached to the report. */
export async function shot(page: Page, testInfo: TestInfo, name: string, { fullPage = true } = {}): Promise<void> {
  fs.mkdirSync(DIR, { recursive: true });
  const file = path.join(DIR, `${String(++n).padStart(2, "0")}-${name}.png`);
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await page.screenshot({ path: file, fullPage });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}
