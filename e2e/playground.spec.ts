/**
 * The playground in Chromium against the real server on the demo upstream: 402 with a link to
 * Billing before any credit; then a chat reply that visibly streams (screenshot mid-stream),
 * Stop with partial tokens billed, the other protocols and the code panel; an image that renders;
 * a video task whose progress reaches 100 % and whose <video> loads; a `[fail]` task refunded.
 * Screenshots go to test-results/screenshots/ (e2e/shots.ts).
 */
import { expect, test, type Page } from "@playwright/test";
import { snap } from "./playground-shot";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const email = `e2e-playground-${Date.now()}@example.test`;
// The demo chat model streams a word every 250 ms when the prompt contains [slow].
const SLOW = "[slow] Tell me about lighthouses, harbours and the sea at night";

test.describe.configure({ mode: "serial" });

let page: Page;

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext({ baseURL: BASE() });
  page = await context.newPage();
  // A crash in the page fails the test it happens in, with the browser's message.
  page.on("pageerror", (err) => pageErrors.push(String(err)));
});

const pageErrors: string[] = [];
test.afterEach(() => {
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});

const lastReply = () => page.getByTestId("chat-reply").last();

async function send(text: string) {
  await page.getByTestId("chat-input").fill(text);
  await page.getByTestId("chat-send").click();
}

test("with no balance a chat shows what to do: a link to Billing", async ({}, info) => {
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill("correct horse battery staple");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/overview/);
  await page.getByRole("link", { name: "Playground" }).first().click();
  await expect(page.getByRole("heading", { name: "Playground" })).toBeVisible();
  await expect(page.getByTestId("chat-model")).toHaveValue("demo-chat");
  await shot(page, info, "playground-chat-empty");
  await send("Hello");
  const err = lastReply().getByTestId("playground-error");
  await expect(err).toContainText("Not enough balance");
  await expect(err).toHaveAttribute("data-code", "insufficient_user_quota");
  const link = err.getByRole("link", { name: /Go to Billing/ });
  await expect(link).toHaveAttribute("href", "/billing");
  await shot(page, info, "playground-402");
  await link.click();
  await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
});

test("top up through (fake) Stripe Checkout", async () => {
  await page.getByRole("button", { name: "$10", exact: true }).click();
  await page.getByTestId("checkout-button").click();
  await expect(page).toHaveURL(new RegExp(`^${process.env.E2E_FAKE_STRIPE_URL}/pay/`));
  await page.getByTestId("fake-stripe-pay").click();
  await expect(page.getByTestId("checkout-paid")).toContainText("$10.00 added");
});

let fullOutputTokens = 0;

test("a chat reply streams in word by word, then shows tokens, cost and time to first token", async ({}, info) => {
  await page.goto("/playground");
  await send(SLOW);
  const reply = lastReply();
  const text = reply.getByTestId("chat-reply-text");
  // Mid-stream: some words are on screen and the reply is still streaming.
  await expect(text).toContainText("demo model");
  await expect(reply).toHaveAttribute("data-state", "streaming");
  const partial = (await text.innerText()).trim();
  await snap(page, info, "chat-mid-stream");
  await expect(reply).toHaveAttribute("data-state", "streaming"); // the screenshot above was taken mid-stream
  await expect(reply).toHaveAttribute("data-state", "done", { timeout: 30_000 });
  const final = (await text.innerText()).trim();
  expect(final.length).toBeGreaterThan(partial.length);
  expect(final.startsWith(partial.slice(0, 20))).toBe(true);
  const usage = reply.getByTestId("reply-usage");
  fullOutputTokens = Number(await usage.getByTestId("usage-output").innerText());
  expect(fullOutputTokens).toBeGreaterThan(10);
  expect(Number(await usage.getByTestId("usage-input").innerText())).toBeGreaterThan(0);
  await expect(usage.getByTestId("usage-cost")).toHaveText(/^\$0\.0\d*[1-9]\d*$/);
  await expect(usage).toContainText(/TTFT [\d,]+ ms/);
  await shot(page, info, "chat-done");
  // The reply opens the request inspector on its own request.
  await usage.getByTestId("reply-details").click();
  const drawer = page.getByRole("dialog", { name: "Request" });
  await expect(drawer).toContainText("Playground");
  await expect(drawer.getByTestId("inspector-cost")).toHaveText(/^\$0\.\d{6}$/);
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
});

test("Stop ends the reply; the usage row shows the partial tokens billed", async ({}, info) => {
  await send(SLOW);
  const reply = lastReply();
  await expect(reply.getByTestId("chat-reply-text")).toContainText("demo model");
  await page.getByTestId("chat-stop").click();
  await expect(reply).toHaveAttribute("data-state", "stopped");
  const usage = reply.getByTestId("reply-usage");
  await expect(usage).toContainText("Stopped");
  await expect(usage.getByTestId("usage-output")).not.toHaveText("—");
  const out = Number(await usage.getByTestId("usage-output").innerText());
  expect(out).toBeGreaterThan(0);
  expect(out).toBeLessThan(fullOutputTokens);
  await expect(usage.getByTestId("usage-cost")).toHaveText(/^\$0\.0\d*[1-9]\d*$/);
  await expect(usage).toContainText("billed for what was generated");
  await shot(page, info, "chat-stopped");
});

test("the other protocols stream too, and the code panel shows the request", async ({}, info) => {
  for (const [label, needle] of [
    ["OpenAI Responses", "/v1/responses"],
    ["Anthropic Messages", "/v1/messages"],
    ["Gemini generateContent", ":streamGenerateContent?alt=sse"],
  ] as const) {
    await page.getByTestId("chat-protocol").selectOption({ label });
    await send(`Hello over ${label}`);
    await expect(lastReply()).toHaveAttribute("data-state", "done");
    await expect(lastReply().getByTestId("chat-reply-text")).toContainText("demo model");
    await expect(lastReply().getByTestId("usage-cost")).toHaveText(/^\$0\.0\d*[1-9]\d*$/);
    await page.getByTestId("view-code").click();
    await expect(page.getByTestId("code-sample")).toContainText(`${BASE()}${needle.startsWith(":") ? "/v1beta/models/demo-chat" : ""}${needle}`);
    await page.getByTestId("view-code").click();
  }
  await page.getByTestId("view-code").click();
  await page.getByRole("tab", { name: /SDK/ }).click();
  await expect(page.getByTestId("code-sample")).toContainText("@google/genai");
  await shot(page, info, "chat-protocols-and-code");
});

test("a reply renders Markdown with a highlighted code block and a copy button", async ({}, info) => {
  await page.getByTestId("view-code").click(); // close the code panel
  await page.getByTestId("chat-new").click();
  await page.getByTestId("chat-protocol").selectOption({ label: "OpenAI Chat Completions" });
  await send("[markdown] show me some code");
  const reply = lastReply();
  await expect(reply).toHaveAttribute("data-state", "done");
  await expect(reply.getByRole("heading", { name: "Demo reply" })).toBeVisible();
  await expect(reply.locator("strong")).toHaveText("Markdown");
  await expect(reply.getByRole("listitem")).toHaveCount(2);
  const block = reply.getByTestId("md-code");
  await expect(block).toContainText("ts");
  await expect(block.locator(".sh__token--keyword").first()).toHaveText("const");
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE() });
  await block.getByTestId("md-copy").click();
  await expect(block.getByTestId("md-copy")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const res = await fetch("/v1/chat/completions", { method: "POST" });\nconsole.log(await res.json());');
  await shot(page, info, "chat-markdown");
});

test("regenerate and edit the last turn", async () => {
  const turns = page.getByTestId("chat-turn");
  const before = await turns.count();
  const oldId = await lastReply().getByTestId("reply-details").getAttribute("data-request-id");
  await page.getByTestId("chat-regenerate").click();
  await expect(lastReply()).toHaveAttribute("data-state", "done");
  await expect(turns).toHaveCount(before);
  expect(await lastReply().getByTestId("reply-details").getAttribute("data-request-id")).not.toBe(oldId);
  await page.getByTestId("chat-edit-last").click();
  await expect(turns).toHaveCount(before - 1);
  await expect(page.getByTestId("chat-input")).toHaveValue("[markdown] show me some code");
  await expect(page.getByTestId("chat-input")).toBeFocused();
  await page.getByTestId("chat-input").fill("Edited question about tides");
  await page.getByTestId("chat-send").click();
  await expect(lastReply()).toHaveAttribute("data-state", "done");
  await expect(lastReply().getByTestId("chat-reply-text")).toContainText("starting with: Edited question about tides.");
  await expect(turns).toHaveCount(before);
});

test("two models side by side: tokens, cost and TTFT per column; the chat survives a reload", async ({}, info) => {
  await page.getByTestId("chat-new").click();
  await page.getByTestId("chat-compare-add").click();
  await expect(page.getByTestId("chat-model-2")).toHaveValue("demo-chat");
  await send("Compare these two columns please");
  const turn = page.getByTestId("chat-turn").last();
  const replies = turn.getByTestId("chat-reply");
  await expect(replies).toHaveCount(2);
  for (const r of await replies.all()) {
    await expect(r).toHaveAttribute("data-state", "done");
    await expect(r.getByTestId("usage-output")).toHaveText(/^\d+$/);
    await expect(r.getByTestId("usage-cost")).toHaveText(/^\$0\.0\d*[1-9]\d*$/);
    await expect(r.getByTestId("usage-ttft")).toHaveText(/^[\d,]+ ms$/);
  }
  // Side by side: same top, different left.
  const [a, b] = [await replies.nth(0).boundingBox(), await replies.nth(1).boundingBox()];
  expect(Math.abs(a!.y - b!.y)).toBeLessThan(2);
  expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
  await shot(page, info, "chat-compare");
  // Kept in the browser: a reload reopens it; the history lists every conversation.
  await page.reload();
  await expect(page.getByTestId("chat-turn").last().getByTestId("chat-reply")).toHaveCount(2);
  await expect(page.getByTestId("chat-turn").last().getByTestId("chat-user")).toHaveText("Compare these two columns please");
  const history = page.getByTestId("chat-history-item");
  await expect(history.first()).toContainText("Compare these two columns please");
  await expect(history.first()).toContainText("2 models");
  expect(await history.count()).toBeGreaterThanOrEqual(3);
  // Another conversation opens from the list; deleting it removes it.
  await history.filter({ hasText: "Edited question" }).click();
  await expect(page.getByTestId("chat-user").last()).toHaveText("Edited question about tides");
  const n = await history.count();
  await page.getByTestId("chat-history-delete").nth(1).click();
  await expect(history).toHaveCount(n - 1);
  await page.getByTestId("chat-history-item").first().click();
});

test("an image shows its price before sending, then renders with its cost", async ({}, info) => {
  await page.getByRole("tab", { name: "Image" }).click();
  await expect(page.getByTestId("image-price")).toContainText("$0.063");
  await page.getByTestId("image-quality").selectOption("high");
  await page.getByTestId("image-size").selectOption("1536x1024");
  await expect(page.getByTestId("image-price")).toContainText("$0.26");
  await page.getByTestId("image-model").selectOption("demo-image-mini");
  await expect(page.getByTestId("image-price")).toContainText("$0.02");
  await page.getByTestId("image-model").selectOption("demo-image");
  await page.getByTestId("image-quality").selectOption("low");
  await page.getByTestId("image-size").selectOption("1024x1024");
  await expect(page.getByTestId("image-price")).toContainText("$0.021");
  await page.getByTestId("image-generate").click();
  await expect(page.getByTestId("image-prompt")).toHaveAttribute("aria-invalid", "true"); // validated before sending
  await page.getByTestId("image-prompt").fill("A lighthouse on a cliff at dawn");
  await page.getByTestId("image-generate").click();
  const img = page.getByTestId("image-result");
  await expect(img).toBeVisible({ timeout: 60_000 });
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  await expect(page.getByTestId("image-cost")).toHaveText("$0.021");
  await expect(page.getByTestId("image-download")).toHaveAttribute("download", /\.png$/);
  await shot(page, info, "image");
});

test("a video task's progress reaches 100 % and the player loads the clip; the list survives a reload", async ({}, info) => {
  await page.getByRole("tab", { name: "Video" }).click();
  await expect(page.getByTestId("video-price")).toContainText("$0.25");
  await page.getByTestId("video-webhook").fill("not a url");
  await page.getByTestId("video-prompt").fill("Waves rolling onto a beach");
  await page.getByTestId("video-submit").click();
  await expect(page.getByText("The webhook must be a full URL")).toBeVisible(); // checked in the form
  await page.getByTestId("video-webhook").fill("");
  await page.getByTestId("video-submit").click();
  const card = page.getByTestId("task-card").first();
  await expect(card).toContainText("Waves rolling onto a beach");
  await expect(card.getByTestId("task-progress")).toBeVisible();
  await expect(card).toHaveAttribute("data-status", /queued|in_progress/);
  await expect(card).toHaveAttribute("data-status", "in_progress", { timeout: 20_000 });
  await snap(page, info, "video-in-progress");
  await expect(card).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(card.getByTestId("task-progress")).toHaveAttribute("aria-valuenow", "100");
  const video = card.getByTestId("task-video");
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => (v.readyState >= 1 ? v.duration : 0)), { timeout: 30_000 }).toBeGreaterThan(0);
  await expect(card.getByTestId("task-download")).toBeVisible();
  await shot(page, info, "video-completed");
  const id = await card.getAttribute("data-task-id");
  await page.reload();
  await expect(page.getByRole("tab", { name: "Video" })).toHaveAttribute("aria-selected", "true");
  const again = page.locator(`[data-testid="task-card"][data-task-id="${id}"]`);
  await expect(again).toHaveAttribute("data-status", "completed");
  // A finished task is not polled again.
  const polls: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes(`/api/playground/v1/videos/${id}`) && !r.url().endsWith("/content")) polls.push(r.url());
  });
  await page.waitForTimeout(4_500);
  expect(polls).toEqual([]);
});

test("a [fail] task shows its reason and the refund", async ({}, info) => {
  await page.getByTestId("video-prompt").fill("[fail] A storm over the harbour");
  await page.getByTestId("video-submit").click();
  const card = page.getByTestId("task-card").filter({ hasText: "A storm over the harbour" });
  await expect(card).toHaveAttribute("data-status", "failed", { timeout: 60_000 });
  await expect(card.getByTestId("task-failed")).toContainText("[fail]");
  await expect(card.getByTestId("task-refunded")).toHaveText("Refunded $0.25 to your balance — you were not charged.");
  await shot(page, info, "video-failed-refunded");
});

test("phone width", async ({}, info) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/playground#chat");
  await expect(page.getByTestId("chat-input")).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // The settings fold away behind a button; the composer is on screen at once, pinned to the bottom.
  await expect(page.getByTestId("chat-model")).toBeHidden();
  const composer = page.getByTestId("chat-composer");
  const box = await composer.boundingBox();
  expect(box!.y + box!.height).toBeLessThanOrEqual(844);
  await page.mouse.wheel(0, 2000);
  const after = await composer.boundingBox();
  expect(after!.y + after!.height).toBeLessThanOrEqual(844);
  // Streaming a reply moves nothing on the page: the log scrolls inside itself.
  const top = await page.getByTestId("chat-log").boundingBox();
  await send(SLOW);
  await expect(lastReply().getByTestId("chat-reply-text")).toContainText("demo model");
  const during = await page.getByTestId("chat-log").boundingBox();
  expect(during!.y).toBeCloseTo(top!.y, 0);
  expect(during!.height).toBeCloseTo(top!.height, 0);
  await page.getByTestId("chat-stop").click();
  await page.getByTestId("chat-side-toggle").click();
  await expect(page.getByTestId("chat-model")).toBeVisible();
  await shot(page, info, "phone-playground-chat");
  await page.goto("/playground#video");
  await expect(page.getByTestId("task-card").first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, info, "phone-playground-video");
  await page.setViewportSize({ width: 1280, height: 800 });
});
