/**
 * Billing → Alerts as an owner uses it: a private webhook URL is refused beside its field, a
 * threshold is saved, "Send test alert" emails the owner (the loopback SMTP server) and the
 * alert shows in the recent list.
 */
import { expect, test, type Page } from "@playwright/test";
import { mailTo } from "./mail";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const email = `e2e-alerts-${Date.now()}@example.test`;

test.use({ baseURL: process.env.E2E_BASE_URL });

test("alerts settings: refused URL, saved threshold, test alert by email", async ({ browser }, info) => {
  const page: Page = await (await browser.newContext({ baseURL: BASE() })).newPage();
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill("correct horse battery staple");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/overview/);
  await page.goto("/billing");
  const form = page.getByTestId("alerts-form");
  await expect(page.getByText("No alerts yet.")).toBeVisible();
  await form.getByLabel("Alert webhook URL").fill("http://10.0.0.1/hook");
  await form.getByLabel("Low-balance threshold (USD)").fill("5");
  await form.getByRole("button", { name: "Save alerts" }).click();
  await expect(form.getByText(/^webhookUrl: /)).toBeVisible();
  await shot(page, info, "alerts-refused-url");

  await form.getByLabel("Alert webhook URL").fill("");
  await form.getByRole("button", { name: "Save alerts" }).click();
  await expect(form.getByText("Saved.")).toBeVisible();
  await form.getByRole("button", { name: "Send test alert" }).click();
  await expect(form.getByText("Test alert sent.")).toBeVisible();
  const mail = await mailTo(email, "Test alert:");
  expect(mail.text).toContain("This is a test alert");
  await page.reload();
  await expect(page.getByTestId("alerts-recent")).toContainText("Test alert");
  await expect(page.getByLabel("Low-balance threshold (USD)")).toHaveValue("5");
  await page.getByTestId("alerts-form").scrollIntoViewIfNeeded();
  await shot(page, info, "alerts-saved");
});
