/**
 * Browser-level security rules in Chromium: after sign-in the console never redirects to
 * another origin whatever `callbackUrl` says (the browser drops TAB/newline and reads `\` as
 * `/`, so the check must parse as it does).
 */
import { expect, test } from "@playwright/test";

const BASE = () => process.env.E2E_BASE_URL!;
const PASSWORD = "correct horse battery staple";
const email = `e2e-sec-${Date.now()}@example.test`;

test.describe.configure({ mode: "serial" });
test.use({ baseURL: process.env.E2E_BASE_URL });

test.beforeAll(async ({ request }) => {
  const r = await request.post(`${BASE()}/api/signup`, { data: { email, password: PASSWORD }, headers: { origin: new URL(BASE()).origin } });
  expect(r.status()).toBe(201);
});

// Raw query values as an attacker would put them in a link.
const TRICKS = [
  "%2F%09%2Fevil.example%2Fx",
  "%2F%0A%2Fevil.example%2Fx",
  "%2F%0D%0A%2Fevil.example",
  "%2F%2Fevil.example",
  "%2F%5Cevil.example",
  "%5C%5Cevil.example",
  "%2F.%2F%2Fevil.example",
  "https%3A%2F%2Fevil.example%2F",
  "https%3Aevil.example",
  "javascript%3Aalert(1)",
  "%20%2F%2Fevil.example",
];

for (const trick of TRICKS) {
  test(`callbackUrl=${trick} stays on the site`, async ({ browser }) => {
    const context = await browser.newContext({ baseURL: BASE() });
    const page = await context.newPage();
    const left: string[] = [];
    page.on("request", (req) => {
      if (new URL(req.url()).origin !== new URL(BASE()).origin) left.push(req.url());
    });
    await page.goto(`/signin?callbackUrl=${trick}`);
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/signin"));
    expect(new URL(page.url()).origin).toBe(new URL(BASE()).origin);
    await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
    expect(left).toEqual([]);
    await context.close();
  });
}

test("a same-site callbackUrl is still followed", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: BASE() });
  const page = await context.newPage();
  await page.goto(`/signin?callbackUrl=${encodeURIComponent("/keys")}`);
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((u) => u.pathname === "/keys");
  await context.close();
});

test("every console page renders and hydrates under the CSP with no violation", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: BASE() });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to (load|execute|apply|connect|frame)/i.test(m.text())) violations.push(m.text());
  });
  await page.goto("/signin");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((u) => u.pathname === "/overview");
  for (const path of ["/overview", "/keys", "/usage", "/billing", "/webhooks", "/docs", "/playground", "/"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    // Hydrated: client navigation works (a script without the nonce would not have run).
    expect(await page.evaluate(() => typeof (window as unknown as { next?: unknown }).next)).toBe("object");
  }
  expect(violations).toEqual([]);
  await context.close();
});

test("the console cannot be framed by another site", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const blocked: string[] = [];
  page.on("console", (m) => {
    if (/frame-ancestors|X-Frame-Options|refused to (display|connect)/i.test(m.text())) blocked.push(m.text());
  });
  await page.setContent(`<iframe id="f" src="${BASE()}/signin"></iframe>`);
  await expect.poll(() => blocked.length, { timeout: 10_000 }).toBeGreaterThan(0);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  // The frame never gets the sign-in form.
  expect(await frame?.locator("input[name=email]").count().catch(() => 0)).toBe(0);
  await context.close();
});

// Before hydration (or with scripts off) the browser submits an auth form itself: that must be a
// POST, never a GET that puts the password in the address bar, the history and proxies' logs.
test("an auth form submitted before its script runs never puts the password in the URL", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: BASE(), javaScriptEnabled: false });
  const page = await context.newPage();
  const sent: { method: string; url: string }[] = [];
  page.on("request", (req) => {
    if (req.isNavigationRequest()) sent.push({ method: req.method(), url: req.url() });
  });
  for (const [path, button] of [["/signin", "Sign in"], ["/signup", "Create account"], ["/forgot-password", "Email me a link"]] as const) {
    await page.goto(path);
    await page.getByLabel("Email", { exact: true }).fill(email);
    const password = page.getByLabel("Password");
    if (await password.count()) await password.fill(PASSWORD);
    sent.length = 0;
    await page.getByRole("button", { name: button, exact: true }).click();
    await page.waitForLoadState("load");
    expect(sent.map((s) => s.method), path).toEqual(["POST"]);
    expect(page.url(), path).not.toContain(encodeURIComponent(email));
    expect(page.url(), path).not.toContain("password=");
    await expect(page.getByRole("button", { name: button, exact: true })).toBeVisible(); // the page renders again
  }
  await context.close();
});
