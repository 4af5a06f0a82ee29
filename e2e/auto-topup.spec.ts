/**
 * Billing → Auto top-up as an owner uses it, against the fake Stripe API: save a card through
 * Checkout in setup mode, turn auto top-up on below the threshold — the worker charges the card
 * once, the balance and the receipts show it and the owner gets an email — then replace the card
 * with one that is declined: the next crossing fails, the card shows what to do, an email says so.
 */
import { expect, test, type Page } from "@playwright/test";
import { mailTo } from "./mail";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const email = `e2e-autotopup-${Date.now()}@example.test`;

test.use({ baseURL: process.env.E2E_BASE_URL });

/** Through the fake Stripe's setup page and back to Billing with the card saved. */
async function saveCard(page: Page, button: string, last4: string) {
  await page.getByRole("button", { name: button }).click();
  await expect(page).toHaveURL(new RegExp(`^${process.env.E2E_FAKE_STRIPE_URL}/pay/`));
  await page.getByTestId(`fake-stripe-save-${last4}`).click();
  await expect(page.getByTestId("card-saved")).toContainText(`Card saved: Visa •••• ${last4}`);
  await expect(page).toHaveURL(/\/billing$/);
  await expect(page.getByTestId("saved-card")).toHaveText(`Visa •••• ${last4}`);
}

test("auto top-up: save a card, a charge below the threshold, then a declined card", async ({ browser }, info) => {
  const page = await (await browser.newContext({ baseURL: BASE() })).newPage();
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill("correct horse battery staple");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/overview/);
  await page.goto("/billing");
  await saveCard(page, "Save a card with Stripe", "4242");

  const form = page.getByRole("form", { name: "Auto top-up" });
  await form.getByLabel("Add (USD)").fill("2");
  await form.getByLabel("When the balance falls below (USD)").fill("5");
  await form.getByRole("button", { name: "Turn on auto top-up" }).click();
  await expect(form.getByText("Add between $5 and $10,000, in whole cents.")).toBeVisible();
  await form.getByLabel("Add (USD)").fill("20");
  await form.getByRole("button", { name: "Turn on auto top-up" }).click();
  await expect(form.getByText("On", { exact: true })).toBeVisible();
  // The balance ($0) is already below $5: the worker charges the card at once.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("auto-topup-recent")).toContainText("Added", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("billing-balance")).toContainText("$20.00");
  await expect(page.getByText("Prepaid balance auto top-up (saved card, Stripe)")).toBeVisible();
  await page.getByRole("form", { name: "Auto top-up" }).scrollIntoViewIfNeeded();
  await shot(page, info, "auto-topup-on");
  const added = await mailTo(email, "Auto top-up: $20.00 added");
  expect(added.text).toContain("Your saved card was charged $20.00");

  // A card that is declined, and a threshold above the balance: the next charge fails, once.
  await saveCard(page, "Replace card", "0002");
  await page.getByRole("form", { name: "Auto top-up" }).getByLabel("When the balance falls below (USD)").fill("25");
  await page.getByRole("form", { name: "Auto top-up" }).getByRole("button", { name: "Save" }).click();
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("auto-topup-problem")).toContainText("failed: Your card was declined.", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("billing-balance")).toContainText("$20.00");
  await page.getByTestId("auto-topup-problem").scrollIntoViewIfNeeded();
  await shot(page, info, "auto-topup-declined");
  const failed = await mailTo(email, "Auto top-up failed");
  expect(failed.text).toContain("Your card was declined.");
});
