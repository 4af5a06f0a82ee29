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

/** Full-page screenshots light and dark at 1280 and 390 px, then back to the default window. */
export async function shotsLightDark(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  for (const width of [1280, 390])
    for (const scheme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await shot(page, testInfo, `${name}-${width}-${scheme}`);
    }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}
