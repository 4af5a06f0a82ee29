/**
 * Every console page in its main states — empty (a new user), filled (an admin with a key,
 * requests, a ledger and a webhook delivery), a dialog or drawer open, and an error — checked
 * by axe (WCAG 2.1 A/AA rules) for no serious or critical violation, in light and dark mode;
 * and every filled page screenshotted at 1280, 1920 and 390 px wide (test-results/screenshots/,
 * not committed) with nothing wider than the window. Self-contained: it makes its own data.
 */
import { expect, test, type Page } from "@playwright/test";
import { axe } from "./axe";
import { signUpOrIn } from "./sign-in";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;

// axe takes a few seconds a page on a busy machine.
test.describe.configure({ mode: "serial", timeout: 600_000 });

const WIDTHS = [1280, 1920, 390] as const;
const PAGES = ["/overview", "/organisation", "/keys", "/playground", "/usage", "/webhooks", "/billing", "/docs", "/admin", "/admin?tab=upstreams", "/admin?tab=models", "/admin?tab=codes", "/admin?tab=audit"] as const;

/** Waits for the page's data (no skeleton left) before checking it. */
async function settled(page: Page) {
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await expect(page.getByTestId("skeleton")).toHaveCount(0);
  await expect(page.locator("h1").first()).toBeVisible();
}

const post = (page: Page, path: string, data: unknown) => page.request.post(`${BASE()}${path}`, { data, headers: { origin: BASE() } });

let empty: Page;
let admin: Page;

test.beforeAll(async ({ browser }) => {
  empty = await signUpOrIn(browser, `e2e-pages-${Date.now()}@example.test`);
  admin = await signUpOrIn(browser, process.env.E2E_ADMIN_EMAIL!);
  // Filled: balance, a key, requests through the API (one refused), a webhook delivery.
  const me = await (await admin.request.get(`${BASE()}/api/console/me`)).json();
  expect((await post(admin, `/api/admin/users/${me.user.id}/balance`, { direction: "credit", usd: "5", note: "pages spec" })).status()).toBe(200);
  const created = await post(admin, "/api/console/keys", { name: "pages spec", allowedModels: [] });
  const key = (await created.json()).key.key as string;
  for (const model of ["demo-chat", "demo-chat", "no-such-model"]) {
    await admin.request.post(`${BASE()}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, data: { model, messages: [{ role: "user", content: "Hello from the pages spec" }] } });
  }
  await post(admin, "/api/console/webhooks/test", { url: `${process.env.E2E_RECEIVER_URL}/hook` });
});

test("empty states: no serious or critical axe violation", async () => {
  for (const path of ["/overview", "/organisation", "/keys", "/playground", "/usage", "/webhooks", "/billing", "/docs"]) {
    await empty.goto(path);
    await settled(empty);
    await axe(empty, `empty ${path}`);
  }
});

for (const width of WIDTHS) {
  test(`filled pages at ${width} px: axe clean, nothing wider than the window, screenshots`, async ({}, info) => {
    await admin.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    for (const path of PAGES) {
      await admin.goto(path);
      await settled(admin);
      const scroll = await admin.evaluate(() => document.documentElement.scrollWidth);
      expect(scroll, `${path} at ${width} px is ${scroll} px wide`).toBeLessThanOrEqual(width);
      await axe(admin, `filled ${path} at ${width}`);
      await shot(admin, info, `page-${width}-${path.replace(/[/?=]+/g, "-").replace(/^-/, "")}`);
    }
    await admin.setViewportSize({ width: 1280, height: 800 });
  });
}

test("dark mode: filled pages axe clean", async ({}, info) => {
  await admin.emulateMedia({ colorScheme: "dark" });
  for (const path of PAGES) {
    await admin.goto(path);
    await settled(admin);
    await axe(admin, `dark ${path}`);
  }
  await shot(admin, info, "page-dark-audit");
  await admin.goto("/usage");
  await settled(admin);
  await shot(admin, info, "page-dark-usage");
  await admin.emulateMedia({ colorScheme: "light" });
});

test("dialogs and drawers open: axe clean", async ({}, info) => {
  await admin.goto("/keys");
  await settled(admin);
  await admin.getByTestId("create-key-button").click();
  await expect(admin.getByRole("dialog")).toBeVisible();
  await axe(admin, "create key dialog");
  await shot(admin, info, "dialog-create-key");
  await admin.keyboard.press("Escape");

  await admin.goto("/usage");
  await settled(admin);
  await admin.getByTestId("request-details").first().click();
  await expect(admin.getByRole("dialog")).toBeVisible();
  await expect(admin.getByRole("dialog").getByTestId("skeleton")).toHaveCount(0);
  await axe(admin, "request inspector");
  await shot(admin, info, "drawer-inspector");
  await admin.keyboard.press("Escape");

  await admin.goto("/admin");
  await settled(admin);
  await admin.getByRole("button", { name: /^Disable/ }).first().click();
  await expect(admin.getByRole("dialog")).toBeVisible();
  await axe(admin, "disable user confirmation");
  await admin.keyboard.press("Escape");

  await admin.setViewportSize({ width: 390, height: 844 });
  await admin.goto("/overview");
  await settled(admin);
  await admin.getByRole("button", { name: "Open navigation" }).click();
  await expect(admin.getByRole("dialog")).toBeVisible();
  await axe(admin, "phone navigation drawer");
  await shot(admin, info, "drawer-phone-nav");
  await admin.keyboard.press("Escape");
  await admin.setViewportSize({ width: 1280, height: 800 });
});

test("error states: axe clean", async ({}, info) => {
  // A filter the server refuses: the page shows its error with Try again.
  await admin.goto("/usage?from=not-a-date");
  await expect(admin.getByRole("alert").first()).toBeVisible();
  await axe(admin, "usage error");
  await shot(admin, info, "error-usage");
  // A playground reply refused for want of balance (the new user has none).
  await empty.goto("/playground");
  await settled(empty);
  await empty.getByTestId("chat-input").fill("Hello");
  await empty.getByTestId("chat-send").click();
  await expect(empty.getByTestId("playground-error")).toBeVisible();
  await axe(empty, "playground 402");
  // The 404 page and a form with errors.
  await empty.goto("/no-such-page");
  await axe(empty, "404");
  await empty.goto("/keys");
  await settled(empty);
  await empty.getByTestId("create-key-button").click();
  await empty.getByRole("dialog").getByLabel(/Spend limit/i).fill("-3");
  await empty.getByTestId("create-key-submit").click();
  await expect(empty.getByRole("dialog").getByText(/limit/i).last()).toBeVisible();
  await axe(empty, "create key form error");
});
