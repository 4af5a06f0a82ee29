/**
 * Admin → Guardrails as an operator meets it: a redaction guardrail added as JSON applies to the
 * next request, a bad entry is refused naming the field, the entry is edited to block and then
 * deleted. (Skipped on a console build made before the tab existed: the route answers 404.)
 */
import { expect, test, type Page } from "@playwright/test";
import { signUpOrIn } from "./sign-in";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
test.use({ baseURL: process.env.E2E_BASE_URL });

const post = (page: Page, path: string, data: unknown) => page.request.post(`${BASE()}${path}`, { data, headers: { origin: BASE() } });

test("add, refuse, edit and delete a guardrail in Admin, each applying to the next request", async ({ browser }, info) => {
  const admin = await signUpOrIn(browser, process.env.E2E_ADMIN_EMAIL!);
  test.skip((await admin.request.get(`${BASE()}/api/admin/guardrails`)).status() === 404, "this console build predates Admin → Guardrails: rebuild");
  const me = await (await admin.request.get(`${BASE()}/api/console/me`)).json();
  expect((await post(admin, `/api/admin/users/${me.user.id}/balance`, { direction: "credit", usd: "1", note: "guardrails spec" })).status()).toBe(200);
  const key = (await (await post(admin, "/api/console/keys", { name: "guardrails spec", allowedModels: [] })).json()).key.key as string;
  const chat = (content: string) => admin.request.post(`${BASE()}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, data: { model: "demo-chat", messages: [{ role: "user", content }] } });
  const entry = admin.getByLabel("Guardrail (JSON)");

  await admin.goto("/admin?tab=guardrails");
  // The example entry is in once the tab has hydrated: typing before that would be lost or joined to it.
  await expect(entry).toHaveValue(/no-card-numbers/);
  await expect(admin.getByText("No guardrails yet")).toBeVisible();
  await entry.fill(JSON.stringify({ id: "e2e-no-pattern", stage: "pre_request", type: "regex", action: "block" }));
  await admin.getByRole("button", { name: "Add guardrail" }).click();
  await expect(admin.getByText(/pattern:/)).toBeVisible();

  await entry.fill(JSON.stringify({ id: "e2e-walrus", stage: "pre_request", type: "regex", pattern: "walrus", action: "redact" }));
  await admin.getByRole("button", { name: "Add guardrail" }).click();
  const table = admin.getByRole("table", { name: "Guardrails" });
  await expect(table).toContainText("e2e-walrus");
  await shot(admin, info, "admin-guardrails");
  expect((await chat("a walrus")).status()).toBe(200);

  await table.getByRole("row", { name: /e2e-walrus/ }).getByRole("button", { name: "Edit" }).click();
  await entry.fill(JSON.stringify({ id: "e2e-walrus", stage: "pre_request", type: "regex", pattern: "walrus", action: "block" }));
  await admin.getByRole("button", { name: "Save guardrail" }).click();
  await expect(table).toContainText("regex · block");
  const blocked = await chat("a walrus");
  expect(blocked.status()).toBe(400);
  expect((await blocked.json()).error.code).toBe("content_policy");

  await table.getByRole("row", { name: /e2e-walrus/ }).getByRole("button", { name: "Delete" }).click();
  await expect(admin.getByText("e2e-walrus")).toHaveCount(0);
  expect((await chat("a walrus")).status()).toBe(200);
});
