/**
 * First data is rendered on the server (docs/decisions/0026-console-first-data-on-the-server.md): with JavaScript off in the
 * browser, each main page already shows its data — the header balance, the key, the requests,
 * the ledger — so with JavaScript on it is on screen in one round trip, with no spinner first.
 */
import { expect, test } from "@playwright/test";

const BASE = () => process.env.E2E_BASE_URL!;
const PASSWORD = "correct horse battery staple";

test("the main pages arrive with their data in the HTML", async ({ browser }) => {
  const email = `e2e-ssr-${Date.now()}@example.test`;
  const withJs = await browser.newContext({ baseURL: BASE() });
  const page = await withJs.newPage();
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/overview/);
  const origin = { origin: BASE() };
  const created = await page.request.post(`${BASE()}/api/console/keys`, { data: { name: "server rendered key", allowedModels: [] }, headers: origin });
  const key = (await created.json()).key.key as string;
  // A request the gateway refuses (no balance) still shows in Usage and Overview.
  await page.request.post(`${BASE()}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, data: { model: "demo-chat", messages: [{ role: "user", content: "hi" }] } });

  // The same session in a browser that runs no script at all.
  const noJs = await browser.newContext({ baseURL: BASE(), javaScriptEnabled: false, storageState: await withJs.storageState() });
  const p = await noJs.newPage();
  await p.goto("/keys");
  await expect(p.getByTestId("key-row")).toContainText("server rendered key");
  await expect(p.getByTestId("skeleton")).toHaveCount(0);
  await p.goto("/overview");
  await expect(p.getByTestId("overview-balance")).toHaveText("$0.00");
  await expect(p.getByTestId("request-row").first()).toContainText("demo-chat");
  await p.goto("/usage");
  await expect(p.getByTestId("request-row").first()).toContainText("demo-chat");
  await p.goto("/billing");
  await expect(p.getByTestId("billing-balance")).toHaveText("$0.00");
  await p.goto("/playground");
  await expect(p.getByTestId("chat-model")).toHaveValue("demo-chat");
  await p.goto("/docs");
  await expect(p.getByText("demo-chat").first()).toBeVisible();
  await withJs.close();
  await noJs.close();
});
