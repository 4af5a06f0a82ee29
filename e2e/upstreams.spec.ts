/**
 * Admin → Upstreams and Aliases as an operator meets them: an upstream that refuses every
 * connection opens its circuit (state, error rate, why, last errors on the Health card); the
 * operator webhook is saved and "Send test event" shows the receiver's answer; a wildcard alias
 * made in the Aliases tab serves Claude Code's dated model id from the API; an admin credits a
 * team organisation (not the user's own) from the Users tab.
 */
import { expect, test, type Page } from "@playwright/test";
import { signUpOrIn } from "./sign-in";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;

test.use({ baseURL: process.env.E2E_BASE_URL });

const post = (page: Page, path: string, data: unknown) => page.request.post(`${BASE()}${path}`, { data, headers: { origin: BASE() } });

test("upstream health card, operator webhook test event, and a wildcard alias", async ({ browser }, info) => {
  const admin = await signUpOrIn(browser, process.env.E2E_ADMIN_EMAIL!);
  const me = await (await admin.request.get(`${BASE()}/api/console/me`)).json();
  expect((await post(admin, `/api/admin/users/${me.user.id}/balance`, { direction: "credit", usd: "5", note: "upstreams spec" })).status()).toBe(200);
  const key = (await (await post(admin, "/api/console/keys", { name: "upstreams spec", allowedModels: [] })).json()).key.key as string;
  const chat = (model: string) => admin.request.post(`${BASE()}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, data: { model, messages: [{ role: "user", content: "Hello" }] } });

  // An upstream nobody listens on, and a model on it: every attempt fails to connect.
  expect((await post(admin, "/api/admin/upstreams", { id: "e2e-dead", protocol: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-e2e-dead-upstream" })).status()).toBe(200);
  expect((await post(admin, "/api/admin/models", { modelId: "e2e-broken-chat", upstreamId: "e2e-dead", kind: "text", ownedBy: "e2e", price: { inputPerMTok: 1, outputPerMTok: 2 } })).status()).toBe(200);
  const answers = await Promise.all(Array.from({ length: 6 }, () => chat("e2e-broken-chat")));
  expect(answers.map((r) => r.status())).toEqual(Array(6).fill(502));
  // Once open, the entry is skipped: 503 at once with Retry-After.
  const skipped = await chat("e2e-broken-chat");
  expect(skipped.status()).toBe(503);
  expect(Number(skipped.headers()["retry-after"])).toBeGreaterThan(0);

  await admin.goto("/admin?tab=upstreams");
  const row = admin.getByTestId("health-row").filter({ hasText: "e2e-broken-chat" });
  await expect(row).toContainText("Open");
  await expect(row).toContainText("100 %");
  await expect(row).toContainText(/attempts failed in the last 60 s/);
  await expect(row).toContainText("upstream_error");
  // A healthy entry beside it stays closed.
  await expect(admin.getByTestId("health-row").filter({ hasText: "demo-chat" }).first()).toContainText("Closed");
  await shot(admin, info, "admin-upstream-health-open");

  // The operator webhook: saved (its secret shown once), then a test event the receiver acknowledges.
  const form = admin.getByRole("form", { name: "Upstream health webhook" });
  await form.getByLabel("Webhook URL").fill(`${process.env.E2E_RECEIVER_URL}/ops`);
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByTestId("upstream-webhook-secret")).toContainText("whsec_");
  await form.getByRole("button", { name: "Send test event" }).click();
  await expect(form.getByTestId("upstream-webhook-test")).toContainText(/delivered: the receiver answered 204 in \d+ ms/);
  const received = (await (await admin.request.get(`${process.env.E2E_RECEIVER_URL}/received`)).json()) as { headers: Record<string, string>; body: string }[];
  const test = received.map((r) => JSON.parse(r.body)).find((b) => b.type === "upstream.test");
  expect(test).toMatchObject({ data: { model: "test-model", upstream: "test-upstream" } });
  expect(received.find((r) => r.body.includes("upstream.test"))!.headers["x-shim-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  await shot(admin, info, "admin-upstream-webhook-test");

  // Aliases: Claude Code's dated ids through one wildcard.
  await admin.getByRole("tab", { name: "Aliases" }).click();
  await admin.getByLabel("Alias or pattern").fill("claude-sonnet-4-5-*");
  await admin.getByLabel("Target models, in order").fill("demo-chat");
  await admin.getByRole("button", { name: "Save alias" }).click();
  await expect(admin.getByRole("table", { name: "Aliases" })).toContainText("claude-sonnet-4-5-*");
  await shot(admin, info, "admin-aliases");
  const dated = await chat("claude-sonnet-4-5-20250929");
  expect(dated.status()).toBe(200);
  expect(dated.headers()["x-gateway-model"]).toBe("demo-chat");
  expect((await dated.json()).model).toBe("claude-sonnet-4-5-20250929");

  // A team organisation's balance, credited by the admin from the Users tab.
  const team = (await (await post(admin, "/api/console/orgs", { name: "E2E Team" })).json()).org.id as string;
  await admin.goto("/admin");
  // Exactly this address: console.spec signs up "second-<admin address>" too.
  const mine = admin.getByTestId("admin-user-row").filter({ has: admin.getByText(process.env.E2E_ADMIN_EMAIL!, { exact: true }) });
  await mine.getByRole("button", { name: "Credit / debit" }).click();
  await admin.getByRole("dialog").getByLabel("Organisation to adjust").selectOption({ label: "E2E Team — $0.00" });
  await admin.getByLabel("Amount (USD)").fill("3");
  await admin.getByLabel("Note").fill("team invoice");
  await shot(admin, info, "admin-credit-team");
  await admin.getByRole("button", { name: "Add credit" }).click();
  await expect(admin.getByRole("dialog")).toHaveCount(0);
  const users = await (await admin.request.get(`${BASE()}/api/admin/users?q=${encodeURIComponent(process.env.E2E_ADMIN_EMAIL!)}`)).json();
  expect(users.items[0].orgs.find((o: { id: string }) => o.id === team).balanceMicroUsd).toBe(3_000_000);
});
