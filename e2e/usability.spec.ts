/**
 * The console's finishing touches, as a person meets them: Usage filters that apply as they are
 * picked and live in the address (a reload keeps them, Back undoes the last pick); ledger
 * references that are links to the request inspector and the video task (an address that can
 * be shared); the phone navigation drawer keeping Tab inside and closing on Escape with focus
 * back on the menu button; a spent or forged password-reset link recognised when it opens.
 * Screenshots of each changed page, light and dark, at 390 and 1280 px. Named to run after
 * console.spec.ts, which signs the admin up (this file signs the admin in to credit a new user).
 */
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { axe } from "./axe";
import { mailTo } from "./mail";
import { signUpOrIn } from "./sign-in";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;

// Not serial: each test stands on its own (a failed one does not skip the rest).
test.describe.configure({ timeout: 180_000 });

const post = (page: Page, path: string, data: unknown) => page.request.post(`${BASE()}${path}`, { data, headers: { origin: BASE() } });

let page: Page;
let key: string;

/** Light and dark, phone and desk: one screenshot each, of the window once `ready` has scrolled to what matters. */
async function shots(p: Page, info: TestInfo, name: string, ready: () => Promise<void> = async () => undefined) {
  for (const scheme of ["light", "dark"] as const) {
    await p.emulateMedia({ colorScheme: scheme });
    for (const width of [390, 1280]) {
      await p.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await ready();
      await shot(p, info, `${name}-${width}-${scheme}`, { fullPage: false });
    }
  }
  await p.emulateMedia({ colorScheme: "light" });
  await p.setViewportSize({ width: 1280, height: 800 });
}

test.beforeAll(async ({ browser }) => {
  // A fresh user, credited by the admin: two good requests, one refused, one video task that fails (charge, then refund).
  page = await signUpOrIn(browser, `e2e-usability-${Date.now()}@example.test`);
  const admin = await signUpOrIn(browser, process.env.E2E_ADMIN_EMAIL!);
  const me = await (await page.request.get(`${BASE()}/api/console/me`)).json();
  expect((await post(admin, `/api/admin/users/${me.user.id}/balance`, { direction: "credit", usd: "5", note: "usability spec" })).status()).toBe(200);
  await admin.context().close();
  key = (await (await post(page, "/api/console/keys", { name: "edges", allowedModels: [] })).json()).key.key;
  const auth = { authorization: `Bearer ${key}` };
  for (const model of ["demo-chat", "demo-chat", "no-such-model"]) {
    await page.request.post(`${BASE()}/v1/chat/completions`, { headers: auth, data: { model, messages: [{ role: "user", content: "Hello from the usability spec" }] } });
  }
  const video = await page.request.post(`${BASE()}/v1/videos`, { headers: auth, data: { model: "demo-video", prompt: "[fail] a storm over the harbour", seconds: "10" } });
  expect(video.status(), await video.text()).toBe(200);
  const id = (await video.json()).id as string;
  await expect.poll(async () => (await (await page.request.get(`${BASE()}/v1/videos/${id}`, { headers: auth })).json()).status, { timeout: 60_000 }).toBe("failed");
});

test("Usage filters apply as they are picked, live in the address, survive a reload; Back undoes the last pick", async ({}, info) => {
  await page.goto("/usage");
  const rows = page.getByTestId("request-row");
  await expect(page.getByTestId("usage-requests")).toContainText("4");
  await expect(page.getByRole("button", { name: "Apply" })).toHaveCount(0);

  // A pick made before the page has hydrated is not seen by React: pick again until it lands.
  await expect(async () => {
    await page.getByLabel("Status").selectOption("error");
    await expect(page).toHaveURL(/[?&]status=error\b/, { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("usage-requests")).toContainText("1");
  await expect(rows).toHaveCount(1);

  await page.getByLabel("Model").selectOption("demo-video");
  await expect(page).toHaveURL(/status=error/);
  await expect(page).toHaveURL(/model=demo-video/);
  await expect(page.getByText("No requests match these filters")).toBeVisible();

  // A shared or reloaded address shows the same view.
  await page.reload();
  await expect(page.getByLabel("Model")).toHaveValue("demo-video");
  await expect(page.getByLabel("Status")).toHaveValue("error");
  await expect(page.getByText("No requests match these filters")).toBeVisible();

  // Back undoes the last pick only.
  await page.goBack();
  await expect(page).toHaveURL(/status=error/);
  await expect(page).not.toHaveURL(/model=/);
  await expect(page.getByLabel("Model")).toHaveValue("");
  await expect(rows).toHaveCount(1);

  // Dates apply once complete; one that ends before the start is refused in place.
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel("From", { exact: true }).fill(today);
  await expect(page).toHaveURL(new RegExp(`from=${today}`));
  await page.getByLabel("To", { exact: true }).fill("2020-01-01");
  await expect(page.getByText("“From” must be on or before “To”.")).toBeVisible();
  await expect(page).not.toHaveURL(/to=2020/);

  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/usage$/);
  await expect(page.getByLabel("Status")).toHaveValue("");
  await expect(page.getByTestId("usage-requests")).toContainText("4");
  await page.getByLabel("Status").selectOption("ok");
  await expect(rows).toHaveCount(3);
  await axe(page, "usage filtered");
  await shots(page, info, "edges-usage-filtered", () => expect(rows.first()).toBeVisible());
  await shot(page, info, "edges-usage-filtered-page");
});

test("ledger references are links: a request id opens the inspector, a task id opens the task", async ({}, info) => {
  await page.goto("/billing");
  const ledger = page.getByTestId("ledger-row");
  await expect(ledger.first()).toBeVisible();

  // The chat charge names its request.
  const charge = ledger.filter({ hasText: "Charge" }).filter({ hasNotText: "video" }).first();
  const requestLink = charge.getByRole("link", { name: /^Request req_/ });
  const href = await requestLink.getAttribute("href");
  expect(href).toMatch(/^\/billing\?request=req_/);
  await requestLink.click();
  const drawer = page.getByRole("dialog");
  await expect(drawer.getByTestId("request-inspector")).toBeVisible();
  await expect(page).toHaveURL(/\?request=req_/);
  await expect(drawer.getByTestId("inspector-cost")).toBeVisible();
  await shots(page, info, "edges-ledger-inspector", () => expect(drawer.getByTestId("request-inspector")).toBeVisible());
  // Back closes it; the address opens it again (shareable).
  await page.goBack();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page).toHaveURL(/\/billing$/);
  await page.goto(href!);
  await expect(page.getByRole("dialog").getByTestId("request-inspector")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page).toHaveURL(/\/billing$/);

  // The video's refund names only the task: its link opens the task.
  const refund = ledger.filter({ hasText: "Refund" }).first();
  const taskLink = refund.getByRole("link", { name: /^Task task_/ });
  await expect(taskLink).toHaveAttribute("href", /^\/billing\?task=task_/);
  await taskLink.click();
  await expect(page).toHaveURL(/\?task=task_/);
  const task = page.getByRole("dialog").getByTestId("inspector-task");
  await expect(task).toBeVisible();
  await expect(task).toContainText("failed");
  await axe(page, "task in the inspector");
  await shots(page, info, "edges-ledger-task", () => expect(page.getByRole("dialog").getByTestId("inspector-task")).toBeVisible());
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);

  await shots(page, info, "edges-billing-ledger", () => ledger.first().scrollIntoViewIfNeeded());

  // The Usage page's task ids are links too.
  await page.goto("/usage");
  const taskRow = page.getByTestId("task-row").first();
  await taskRow.getByRole("link", { name: /^Task task_/ }).click();
  await expect(page.getByRole("dialog").getByTestId("inspector-task")).toBeVisible();
  await page.keyboard.press("Escape");
  await shots(page, info, "edges-usage-tasks", () => taskRow.scrollIntoViewIfNeeded());
});

test("phone: the open navigation drawer keeps Tab inside, and Escape closes it with focus back on the menu button", async ({}, info) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/overview");
  const menu = page.getByRole("button", { name: "Open navigation" });
  await menu.click();
  const drawer = page.getByRole("dialog", { name: "Navigation" });
  await expect(drawer).toBeVisible();
  const inside = () => drawer.evaluate((d) => d.contains(document.activeElement) && document.activeElement !== d);
  const focusables = await drawer.locator("a[href], button, select").count();
  const seen = new Set<string>();
  for (let i = 0; i < focusables + 2; i++) {
    await page.keyboard.press("Tab");
    expect(await inside(), `Tab ${i + 1} left the drawer`).toBe(true);
    seen.add(await page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.getAttribute("aria-label") ?? ""} ${document.activeElement?.textContent}`));
  }
  expect(seen.size).toBe(focusables); // round and round, every control visited
  for (let i = 0; i < focusables + 2; i++) {
    await page.keyboard.press("Shift+Tab");
    expect(await inside(), `Shift+Tab ${i + 1} left the drawer`).toBe(true);
  }
  await shot(page, info, "edges-phone-drawer-light", { fullPage: false });
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, info, "edges-phone-drawer-dark", { fullPage: false });
  await page.emulateMedia({ colorScheme: "light" });
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
  await expect(menu).toBeFocused();
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("a spent or forged reset link says so when the page opens, with the way to a new link; a live one is not spent by opening", async ({ browser }, info) => {
  const email = `e2e-reset-${Date.now()}@example.test`;
  const who = await signUpOrIn(browser, email);
  await who.context().close();
  const anon = await (await browser.newContext({ baseURL: BASE() })).newPage();
  expect((await post(anon, "/api/password-reset", { email })).status()).toBe(200);
  const link = (await mailTo(email, "Reset")).text.match(/https?:\/\/\S+\/reset-password#token=[A-Za-z0-9_-]+/)![0];

  // Opened twice (a second tab, a reload): still live, the form is there.
  for (let i = 0; i < 2; i++) {
    await anon.goto("/signin");
    await anon.goto(link);
    await expect(anon.getByLabel("New password")).toBeVisible();
  }
  await anon.getByLabel("New password").fill("a brand new passphrase");
  await anon.getByLabel("Repeat it").fill("a brand new passphrase");
  await anon.getByRole("button", { name: "Set new password" }).click();
  await expect(anon.getByTestId("reset-done")).toBeVisible();

  // Spent: said at once, no form to fill in.
  await anon.goto("/signin");
  await anon.goto(link);
  const dead = anon.getByTestId("reset-link-dead");
  await expect(dead).toContainText("not valid any more");
  await expect(anon.getByRole("link", { name: "Ask for a new link" })).toHaveAttribute("href", "/forgot-password");
  await expect(anon.getByLabel("New password")).toHaveCount(0);
  await axe(anon, "dead reset link");
  await shots(anon, info, "edges-reset-dead", () => expect(dead).toBeVisible());

  // Forged, or cut short in copying.
  await anon.goto("/signin");
  await anon.goto(`/reset-password#token=${"A".repeat(43)}`);
  await expect(anon.getByTestId("reset-link-dead")).toBeVisible();
  await anon.goto("/signin");
  await anon.goto("/reset-password");
  await expect(anon.getByTestId("reset-link-dead")).toBeVisible();
  await expect(anon.getByLabel("New password")).toHaveCount(0);
  await anon.context().close();
});
