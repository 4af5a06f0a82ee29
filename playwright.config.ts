/**
 * Console end-to-end tests in Debian's Chromium against `npm start` (the built app and custom
 * server) on a fresh database: PostgreSQL when DATABASE_URL is set (CI), PGlite otherwise.
 * e2e/global-setup.ts starts the server and a fake Stripe API; screenshots of every page are
 * written to test-results/screenshots/.
 */
import { execSync } from "node:child_process";
import { defineConfig } from "@playwright/test";

function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execSync("command -v chromium || command -v chromium-browser", { shell: "/bin/sh" }).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/e2e",
  globalSetup: "./e2e/global-setup.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "test-results/e2e-report" }]],
  use: {
    browserName: "chromium",
    headless: true,
    viewport: { width: 1280, height: 800 },
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: chromiumPath(),
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"],
    },
  },
});
