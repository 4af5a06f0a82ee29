import type { Browser, Page } from "@playwright/test";

export const PASSWORD = "correct horse battery staple";

/**
 * A page signed in as `email`, in a context of its own: signs up, or signs in when the address
 * already has an account (the admin address may have signed up in another spec file).
 */
export async function signUpOrIn(browser: Browser, email: string): Promise<Page> {
  const page = await (await browser.newContext({ baseURL: process.env.E2E_BASE_URL })).newPage();
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  const landed = await page.waitForURL(/\/overview/, { timeout: 10_000 }).then(
    () => true,
    () => false,
  );
  if (!landed) {
    await page.goto("/signin");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/overview/);
  }
  return page;
}
