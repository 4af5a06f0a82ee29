/**
 * The console as a user walks through it: sign up → top up with (fake) Stripe Checkout →
 * create a key → copy it → call /v1/models and a chat completion with it → the request shows
 * in Usage and the balance moves → revoke → 401. Then Admin, Docs, Playground, phone width,
 * sign out and in, and a second user who is not an admin. Every page is screenshotted.
 */
import { createHmac } from "node:crypto";
import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const PASSWORD = "correct horse battery staple";
// An ADMIN_EMAILS address (e2e/global-setup.ts): admin even when another spec signed up first.
const email = process.env.E2E_ADMIN_EMAIL ?? `e2e-${Date.now()}@example.test`;

test.describe.configure({ mode: "serial" });
test.use({ baseURL: process.env.E2E_BASE_URL });

let page: Page;
let secret = "";

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext({ baseURL: BASE(), permissions: ["clipboard-read", "clipboard-write"] });
  page = await context.newPage();
});

async function me(request: APIRequestContext) {
  const r = await request.get(`${BASE()}/api/console/me`);
  expect(r.status()).toBe(200);
  return r.json();
}

test("sign up lands on the overview", async ({}, info) => {
  await page.goto("/");
  await shot(page, info, "landing");
  await page.goto("/signup");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Enter a valid email address.")).toBeVisible(); // validated before sending
  await shot(page, info, "signup-validation");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/overview/);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.getByTestId("overview-balance")).toHaveText("$0.00");
  await expect(page.getByRole("heading", { name: "Get started" })).toBeVisible();
  await shot(page, info, "overview-new-user");
});

test("top up $10 through Stripe Checkout", async ({}, info) => {
  await page.getByRole("link", { name: "Billing" }).first().click();
  await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
  // Stored responses: the operator's retention, and the account switch (off, then on again).
  await expect(page.getByText(/encrypted, for 30 days/)).toBeVisible();
  const store = page.getByTestId("store-responses");
  await expect(store).toBeChecked();
  // click, not check(): the box is controlled by the saved setting, so it flips when the save answers.
  await store.click();
  await expect(page.getByText(/Nothing is stored/)).toBeVisible();
  await expect(store).not.toBeChecked();
  await store.click();
  await expect(store).toBeChecked();
  await page.getByLabel("Or another amount (USD)").fill("3");
  await page.getByTestId("checkout-button").click();
  await expect(page.getByText("The minimum top-up is $5.")).toBeVisible();
  await page.getByLabel("Or another amount (USD)").fill("");
  await page.getByRole("button", { name: "$10", exact: true }).click();
  await shot(page, info, "billing");
  await page.getByTestId("checkout-button").click();
  await expect(page).toHaveURL(new RegExp(`^${process.env.E2E_FAKE_STRIPE_URL}/pay/`));
  await expect(page.getByTestId("fake-stripe-amount")).toHaveText("$10.00");
  await shot(page, info, "fake-stripe-checkout");
  await page.getByTestId("fake-stripe-pay").click();
  await expect(page).toHaveURL(/\/billing\/success\?session_id=cs_/);
  await expect(page.getByTestId("checkout-paid")).toContainText("$10.00 added");
  await shot(page, info, "billing-success");
  expect((await me(page.request)).account.balanceMicroUsd).toBe(10_000_000);
  await page.getByRole("link", { name: "Back to Billing" }).click();
  await expect(page.getByTestId("billing-balance")).toHaveText("$10.00");
  await expect(page.getByTestId("ledger-row").first()).toContainText("Top-up");
  await shot(page, info, "billing-after-topup");
});

test("create a key, see it once, copy it", async ({}, info) => {
  await page.getByRole("link", { name: "API Keys" }).first().click();
  await expect(page.getByText("No API keys yet")).toBeVisible();
  await shot(page, info, "keys-empty");
  await page.getByTestId("create-key-button").click();
  await page.getByTestId("create-key-submit").click();
  await expect(page.getByText("Give the key a name")).toBeVisible();
  await page.getByLabel("Name").fill("e2e key");
  await page.getByLabel("Spend limit (USD)").fill("abc");
  await page.getByTestId("create-key-submit").click();
  await expect(page.getByText("Enter a dollar amount such as 25 or 0.50.")).toBeVisible();
  await page.getByLabel("Spend limit (USD)").fill("5");
  await page.getByLabel("Only these models").check();
  await page.getByRole("group", { name: "Allowed models" }).getByText("demo-chat").click();
  await shot(page, info, "keys-create-form");
  await page.getByTestId("create-key-submit").click();
  const value = page.getByTestId("new-key-value");
  await expect(value).toHaveText(/^sk-[A-Za-z0-9]{43}$/);
  secret = (await value.textContent())!;
  await page.getByTestId("copy-key").click();
  await expect(page.getByTestId("copy-key")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await shot(page, info, "keys-reveal");
  await page.getByRole("button", { name: "I have copied it" }).click();
  const row = page.getByTestId("key-row").first();
  await expect(row).toContainText("e2e key");
  await expect(row).toContainText(`${secret.slice(0, 9)}…${secret.slice(-4)}`);
  await expect(page.locator("body")).not.toContainText(secret); // never shown again
  await page.getByRole("button", { name: "Edit e2e key" }).click();
  await expect(page.getByLabel("Name")).toHaveValue("e2e key");
  await page.getByLabel("Spend limit (USD)").fill("7.5");
  await page.getByTestId("create-key-submit").click();
  await expect(row).toContainText("$7.50");
  await shot(page, info, "keys-list");
});

test("the key works at once; the request shows in Usage and the balance moves", async ({ request }, info) => {
  const auth = { authorization: `Bearer ${secret}` };
  const models = await request.get(`${BASE()}/v1/models`, { headers: auth });
  expect(models.status()).toBe(200);
  expect((await models.json()).data.map((m: { id: string }) => m.id)).toEqual(["demo-chat"]);
  const chat = await request.post(`${BASE()}/v1/chat/completions`, {
    headers: auth,
    data: { model: "demo-chat", messages: [{ role: "user", content: "Say hello to the console test" }] },
  });
  expect(chat.status()).toBe(200);
  const body = await chat.json();
  expect(body.object).toBe("chat.completion");
  const cost = Number(chat.headers()["x-gateway-cost-usd"]);
  expect(cost).toBeGreaterThan(0);
  // A model outside the key's allow-list is refused.
  const other = await request.post(`${BASE()}/v1/embeddings`, { headers: auth, data: { model: "demo-embed", input: "x" } });
  expect(other.status()).toBe(404);

  await page.getByRole("link", { name: "Usage" }).first().click();
  const rows = page.getByTestId("request-row");
  await expect(rows.filter({ hasText: "demo-chat" }).filter({ hasText: "200" })).toHaveCount(1);
  // Less than a cent: "< $0.01", the exact figure on hover.
  await expect(page.getByTestId("usage-spend")).toHaveText("< $0.01");
  await expect(page.getByTestId("usage-spend").locator("span")).toHaveAttribute("title", `$${cost.toFixed(6)}`);
  await shot(page, info, "usage");
  const balance = (await me(page.request)).account.balanceMicroUsd;
  expect(balance).toBe(10_000_000 - Math.round(cost * 1_000_000));
  await page.getByRole("link", { name: "Overview" }).first().click();
  await expect(page.getByTestId("request-row").filter({ hasText: "demo-chat" })).toHaveCount(1);
  await shot(page, info, "overview-with-usage");
  await page.getByRole("link", { name: "Billing" }).first().click();
  await expect(page.getByTestId("ledger-row").first()).toContainText("Charge");
  await shot(page, info, "billing-ledger");
});

test("roll keeps the old secret for the grace period; revoke answers 401", async ({ request }, info) => {
  await page.getByRole("link", { name: "API Keys" }).first().click();
  await page.getByRole("button", { name: "Roll e2e key" }).click();
  await page.getByLabel("Old secret stops working").selectOption({ label: "After 1 hour" });
  await shot(page, info, "keys-roll");
  await page.getByRole("button", { name: "Roll key" }).click();
  const rolled = (await page.getByTestId("new-key-value").textContent())!;
  expect(rolled).not.toBe(secret);
  await page.getByRole("button", { name: "I have copied it" }).click();
  for (const k of [secret, rolled]) {
    expect((await request.get(`${BASE()}/v1/models`, { headers: { authorization: `Bearer ${k}` } })).status()).toBe(200);
  }
  await expect(page.getByTestId("key-row").first()).toContainText("old secret until");
  await page.getByRole("button", { name: "Revoke e2e key" }).click();
  await shot(page, info, "keys-revoke-confirm");
  await page.getByTestId("confirm-revoke").click();
  await expect(page.getByText("Show 1 revoked key")).toBeVisible();
  for (const k of [secret, rolled]) {
    const r = await request.get(`${BASE()}/v1/models`, { headers: { authorization: `Bearer ${k}` } });
    expect(r.status()).toBe(401);
    expect((await r.json()).error.code).toBe("invalid_token");
  }
  await page.getByText("Show 1 revoked key").click();
  await expect(page.getByTestId("key-row").first()).toContainText("Revoked");
  await shot(page, info, "keys-revoked");
});

test("admin: users, credit, upstreams, models, audit", async ({}, info) => {
  await page.getByRole("link", { name: "Admin" }).first().click();
  const mine = page.getByTestId("admin-user-row").filter({ has: page.getByText(email, { exact: true }) });
  await expect(mine).toHaveCount(1);
  await shot(page, info, "admin-users");
  await mine.getByRole("button", { name: "Credit / debit" }).click();
  await page.getByLabel("Amount (USD)").fill("2.50");
  await page.getByLabel("Note").fill("e2e goodwill");
  await shot(page, info, "admin-credit-dialog");
  await page.getByRole("button", { name: "Add credit" }).click();
  // $10 top-up − the chat charge + $2.50, to cents (the exact figure is on hover).
  await expect(mine).toContainText(/\$12\.(49|50)/);
  await page.getByRole("tab", { name: "Upstreams" }).click();
  await page.getByTestId("upstream-row").filter({ hasText: "demo" }).getByRole("button", { name: "Test" }).click();
  await expect(page.getByText("The built-in demo upstream needs no connection.")).toBeVisible();
  await shot(page, info, "admin-upstreams");
  await page.getByRole("tab", { name: "Models & prices" }).click();
  await expect(page.getByTestId("model-row").filter({ hasText: "demo-chat" })).toBeVisible();
  await shot(page, info, "admin-models");
  await page.getByTestId("model-row").filter({ hasText: "demo-image-mini" }).getByRole("button", { name: "Edit" }).click();
  await shot(page, info, "admin-model-edit");
  await page.getByRole("button", { name: "Cancel" }).click();
  // A text model: sizing fields and the Strict switch (hints refused instead of dropped), saved.
  const chatRow = page.getByTestId("model-row").filter({ hasText: "demo-chat" });
  await chatRow.getByRole("button", { name: "Edit" }).click();
  await expect(page.getByLabel("Context window (tokens)")).toHaveValue("32768");
  await page.getByLabel(/Strict: refuse settings/).check();
  await shot(page, info, "admin-model-edit-text");
  await page.getByRole("dialog").getByRole("button", { name: /Save/ }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await chatRow.getByRole("button", { name: "Edit" }).click();
  await expect(page.getByLabel(/Strict: refuse settings/)).toBeChecked();
  await page.getByLabel(/Strict: refuse settings/).uncheck();
  await page.getByRole("dialog").getByRole("button", { name: /Save/ }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.getByRole("tab", { name: "Audit log" }).click();
  await expect(page.getByTestId("audit-row").filter({ hasText: "balance.credit" })).toBeVisible();
  await shot(page, info, "admin-audit");
});

test("docs, playground and phone width", async ({}, info) => {
  await page.getByRole("link", { name: "Docs" }).first().click();
  await expect(page.getByTestId("docs-base-url")).toHaveText(`${BASE()}/v1`);
  await shot(page, info, "docs");
  await page.getByRole("tab", { name: "Anthropic SDK" }).click();
  await expect(page.getByText("@anthropic-ai/sdk")).toBeVisible();
  await page.getByRole("link", { name: /Playground/ }).first().click();
  await expect(page.getByRole("heading", { name: "Playground" })).toBeVisible();
  await shot(page, info, "playground");
  await page.getByRole("link", { name: "Overview" }).first().click(); // leaving the playground client-side
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("button", { name: "Open navigation" }).click();
  await shot(page, info, "phone-nav");
  await page.getByRole("dialog", { name: "Navigation" }).getByRole("link", { name: "API Keys" }).click();
  await expect(page.getByRole("heading", { name: "API Keys" })).toBeVisible();
  await page.getByText("Show 1 revoked key").click();
  await shot(page, info, "phone-keys");
  // Wide tables scroll inside their card; the page itself never scrolls sideways.
  for (const path of ["/keys", "/usage", "/billing", "/overview", "/admin?tab=models", "/docs"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
  }
  await page.goto("/usage");
  await shot(page, info, "phone-usage");
  await page.getByRole("link", { name: /balance/ }).click();
  await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
  await shot(page, info, "phone-billing");
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("webhooks: a signed test event reaches the receiver", async ({ request }, info) => {
  await page.getByRole("link", { name: "Webhooks" }).first().click();
  await expect(page.getByText("No deliveries yet")).toBeVisible();
  await page.getByLabel("Receiver URL").fill("http://10.0.0.1/hook");
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect(page.getByText(/This URL is not allowed/)).toBeVisible(); // private address: refused, shown by the field
  const target = `${process.env.E2E_RECEIVER_URL}/hook`;
  await page.getByLabel("Receiver URL").fill(target);
  await page.getByLabel("Secret").fill("e2e-webhook-secret");
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect(page.getByTestId("test-event-result")).toContainText("Delivered");
  await expect(page.getByTestId("delivery-row")).toHaveCount(1);
  await page.getByRole("button", { name: "Attempts" }).click();
  await shot(page, info, "webhooks");
  const got = (await (await request.get(`${process.env.E2E_RECEIVER_URL}/received`)).json()) as { headers: Record<string, string>; body: string }[];
  const last = got.at(-1)!;
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(last.headers["x-shim-signature"]!)!;
  expect(createHmac("sha256", "e2e-webhook-secret").update(`${t}.${last.body}`).digest("hex")).toBe(v1);
  expect(JSON.parse(last.body)).toMatchObject({ object: "task", status: "completed", test: true });
});

/** Every match is laid out within the window's width (not clipped off to the right). */
async function allInside(loc: Locator, width: number, what: string) {
  await expect(loc.first(), what).toBeVisible();
  const n = await loc.count();
  expect(n, what).toBeGreaterThan(0);
  for (let i = 0; i < n; i++) {
    const box = await loc.nth(i).boundingBox();
    expect(box, `${what} #${i}`).not.toBeNull();
    expect(box!.x, `${what} #${i} left edge`).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, `${what} #${i} right edge at ${width} px`).toBeLessThanOrEqual(width + 0.5);
  }
}

test("Cost and every row action stay inside the viewport at 1280, 1920 and 390 px", async ({}, info) => {
  const origin = new URL(BASE()).origin;
  const created = await page.request.post(`${BASE()}/api/console/keys`, { headers: { origin }, data: { name: "a key with a rather long name for layout" } });
  expect(created.status()).toBe(200);
  const id = (await created.json()).key.id as string;
  const rolled = await page.request.post(`${BASE()}/api/console/keys/${encodeURIComponent(id)}/roll`, { headers: { origin }, data: { graceSeconds: 3600 } });
  expect(rolled.status()).toBe(200);
  for (const width of [1280, 1920, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/usage");
    await allInside(page.getByTestId("request-cost"), width, "Usage cost");
    await allInside(page.getByTestId("request-details"), width, "Usage details");
    await shot(page, info, `layout-usage-${width}`);
    await page.goto("/keys");
    await expect(page.getByTestId("key-row").first()).toContainText("old secret until");
    await allInside(page.getByTestId("key-row").getByRole("button"), width, "key actions");
    await shot(page, info, `layout-keys-${width}`);
    await page.goto("/webhooks");
    await allInside(page.getByTestId("delivery-row").getByRole("button"), width, "webhook actions");
    await page.goto("/admin?tab=upstreams");
    const demo = page.getByTestId("upstream-row").filter({ hasText: "demo" });
    await demo.getByRole("button", { name: "Test" }).click();
    await expect(demo).toContainText("needs no connection");
    await allInside(page.getByTestId("upstream-row").getByRole("button"), width, "upstream actions");
    await shot(page, info, `layout-upstreams-${width}`);
    await page.goto("/admin?tab=audit");
    await allInside(page.getByTestId("audit-details"), width, "audit details");
    await shot(page, info, `layout-audit-${width}`);
    await page.goto("/billing");
    await page.waitForLoadState("networkidle");
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "billing width").toBeLessThanOrEqual(width);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("the request inspector shows one request", async ({}, info) => {
  await page.goto("/usage");
  await page.getByTestId("request-row").filter({ hasText: "demo-chat" }).first().getByTestId("request-details").click();
  const drawer = page.getByRole("dialog", { name: "Request" });
  await expect(drawer.getByTestId("request-inspector")).toBeVisible();
  await expect(drawer).toContainText("Completed: charged for the tokens the upstream reported.");
  await expect(drawer).toContainText("demo-chat");
  await expect(drawer.getByTestId("inspector-cost")).toHaveText(/^\$0\.\d{6}$/);
  await shot(page, info, "inspector");
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
});

test("tabs follow the arrow keys; favicon; a styled 404", async ({ request }) => {
  await page.goto("/admin");
  const users = page.getByRole("tab", { name: "Users" });
  await users.focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Upstreams" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tab", { name: "Upstreams" })).toBeFocused();
  await page.keyboard.press("End");
  await expect(page.getByRole("tab", { name: "Audit log" })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowRight"); // wraps around
  await expect(page.getByRole("tab", { name: "Users" })).toHaveAttribute("aria-selected", "true");
  const icon = await request.get(`${BASE()}/favicon.ico`);
  expect(icon.status()).toBe(200);
  const missing = await page.goto("/no-such-page");
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await page.getByRole("link", { name: "Go to the console" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
});

test("dark mode follows the system setting, and the header toggle overrides it", async ({}, info) => {
  const bodyBg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/usage");
  await expect(page.getByTestId("request-row").first()).toBeVisible();
  expect(await bodyBg()).toBe("rgb(24, 24, 27)");
  await shot(page, info, "dark-usage");
  await page.getByTestId("theme-toggle").click(); // system → light
  expect(await bodyBg()).toBe("rgb(255, 255, 255)");
  await page.reload();
  await expect(page.getByTestId("theme-toggle")).toHaveAttribute("title", "Theme: light"); // remembered
  expect(await bodyBg()).toBe("rgb(255, 255, 255)");
  await page.getByTestId("theme-toggle").click(); // light → dark
  await page.emulateMedia({ colorScheme: "light" });
  expect(await bodyBg()).toBe("rgb(24, 24, 27)");
  await page.goto("/billing");
  await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
  await shot(page, info, "dark-billing");
  await page.getByTestId("theme-toggle").click(); // dark → system (light here)
  expect(await bodyBg()).toBe("rgb(255, 255, 255)");
});

test("sign out, a wrong password, sign in again", async ({}, info) => {
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/signin/);
  // The form must have hydrated: a submit before that is the browser's own, which reloads the page empty.
  await page.waitForLoadState("networkidle");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Wrong email or password.")).toBeVisible();
  // SMTP_URL is set (e2e/global-setup.ts): the link leads to the email reset (e2e/email-codes.spec.ts).
  await expect(page.getByTestId("forgot-password")).toHaveAttribute("href", "/forgot-password");
  await shot(page, info, "signin-error");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/overview/);
});

test("a second user is not an admin and sees an empty console", async ({ browser }, info) => {
  const context = await browser.newContext({ baseURL: BASE() });
  const p = await context.newPage();
  await p.goto("/signup");
  await p.getByLabel("Email", { exact: true }).fill(`second-${email}`);
  await p.getByLabel("Password").fill(PASSWORD);
  await p.getByRole("button", { name: "Create account" }).click();
  await expect(p).toHaveURL(/\/overview/);
  await expect(p.getByRole("link", { name: "Admin" })).toHaveCount(0);
  await p.goto("/usage");
  await expect(p.getByText("No requests yet")).toBeVisible();
  await shot(p, info, "second-user-usage");
  const admin = await p.goto("/admin");
  expect(admin?.status()).toBe(404);
  expect((await p.request.get(`${BASE()}/api/admin/users`)).status()).toBe(403);
  await context.close();
});
