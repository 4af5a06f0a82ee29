/**
 * Email, redeem codes and receipts as people use them: forgot password → the link in the email
 * that arrived at the loopback SMTP server → a new password → sign in; an admin makes a redeem
 * code, a user redeems it on Billing and the balance moves; the receipt and the month's
 * statement download.
 */
import fs from "node:fs";
import { expect, test, type Browser, type Page, type TestInfo } from "@playwright/test";
import { mailTo } from "./mail";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a brand new passphrase";
const ADMIN = process.env.E2E_ADMIN_EMAIL!;
const email = `e2e-codes-${Date.now()}@example.test`;

test.describe.configure({ mode: "serial" });
test.use({ baseURL: process.env.E2E_BASE_URL });

let page: Page;

test.beforeAll(async ({ browser }) => {
  page = await (await browser.newContext({ baseURL: BASE(), acceptDownloads: true })).newPage();
});

async function signUpOrIn(p: Page, who: string, password: string) {
  await p.goto("/signin");
  await p.getByLabel("Email", { exact: true }).fill(who);
  await p.getByLabel("Password").fill(password);
  await p.getByRole("button", { name: "Sign in", exact: true }).click();
  if (await p.waitForURL(/\/overview/, { timeout: 5_000 }).then(() => true, () => false)) return;
  await p.goto("/signup");
  await p.getByLabel("Email", { exact: true }).fill(who);
  await p.getByLabel("Password").fill(password);
  await p.getByRole("button", { name: "Create account" }).click();
  await expect(p).toHaveURL(/\/overview/);
}

test("forgot password: the emailed link sets a new password", async ({}, info) => {
  await signUpOrIn(page, email, PASSWORD);
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/signin/);
  await page.getByTestId("forgot-password").click();
  await expect(page).toHaveURL(/\/forgot-password/);
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByRole("button", { name: "Email me a link" }).click();
  await expect(page.getByTestId("reset-sent")).toContainText("If an account uses this email");
  await shot(page, info, "forgot-password-sent");

  const mail = await mailTo(email, "Reset");
  const link = mail.text.match(/https?:\/\/\S+\/reset-password#token=[A-Za-z0-9_-]+/)?.[0];
  expect(link).toBeTruthy();
  await page.goto(link!);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await expect(page).not.toHaveURL(/token=/); // the token leaves the address bar once read
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await page.getByLabel("Repeat it").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Set new password" }).click();
  await expect(page.getByTestId("reset-done")).toContainText("Your password is changed");
  await shot(page, info, "reset-password-done");

  // The link works once, and says so as it opens (from another page: a same-page hash change would not reload).
  await page.goto("/signin");
  await page.goto(link!);
  await expect(page.getByTestId("reset-link-dead")).toContainText("not valid any more");
  await expect(page.getByLabel("New password")).toHaveCount(0);

  await page.goto("/signin");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/overview/);
});

async function makeCode(browser: Browser, info: TestInfo): Promise<string> {
  const admin = await (await browser.newContext({ baseURL: BASE() })).newPage();
  await signUpOrIn(admin, ADMIN, PASSWORD);
  await admin.goto("/admin?tab=codes");
  const form = admin.getByTestId("code-batch-form");
  await form.getByLabel("Amount per code (USD)").fill("7.50");
  await form.getByLabel("Codes", { exact: true }).fill("1");
  await form.getByLabel("Note").fill("e2e launch");
  await form.getByRole("button", { name: "Create codes" }).click();
  const list = admin.getByTestId("code-list");
  await expect(list).toContainText("GW-");
  await expect(admin.getByTestId("code-batch-row").first()).toContainText("e2e launch");
  await shot(admin, info, "admin-redeem-codes");
  const code = (await list.textContent())!.trim();
  await admin.context().close();
  return code;
}

test("redeem a code on Billing: the balance moves and a receipt appears", async ({ browser }, info) => {
  const code = await makeCode(browser, info);
  await page.goto("/billing");
  const balance = page.getByTestId("billing-balance");
  await expect(balance).toContainText("$0.00");
  await page.getByLabel("Code").fill(code.toLowerCase());
  await page.getByRole("button", { name: "Redeem" }).click();
  await expect(page.getByTestId("redeem-ok")).toHaveText("7.50 USD added to your balance.");
  await expect(balance).toContainText("$7.50");
  await expect(page.getByTestId("header-balance")).toContainText("$7.50");
  // Again: refused with the reason.
  await page.getByLabel("Code").fill(code);
  await page.getByRole("button", { name: "Redeem" }).click();
  await expect(page.getByText("Your account has already redeemed this code.")).toBeVisible();
  await expect(page.getByTestId("receipt-row").first()).toContainText("$7.50");
  await shot(page, info, "billing-redeemed");
});

test("download the receipt and the month's statement", async ({}, info) => {
  const [receipt] = await Promise.all([page.waitForEvent("download"), page.getByTestId("receipt-pdf").first().click()]);
  expect(receipt.suggestedFilename()).toMatch(/^receipt-R-\d+\.pdf$/);
  const bytes = fs.readFileSync((await receipt.path())!);
  expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByTestId("statement-csv").click()]);
  const text = fs.readFileSync((await csv.path())!, "utf8");
  expect(text).toContain("summary,other_credits,,,,7.500000");
  const [pdf] = await Promise.all([page.waitForEvent("download"), page.getByTestId("statement-pdf").click()]);
  expect(pdf.suggestedFilename()).toMatch(/^statement-\d{4}-\d{2}\.pdf$/);
  await shot(page, info, "billing-receipts");
});
