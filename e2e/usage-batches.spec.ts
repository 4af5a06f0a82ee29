/**
 * The Batches page as a developer uses it after moving a nightly job onto batches: a finished
 * batch shows its lines done/failed, its cost and downloads of its results and errors; a running
 * one is cancelled after a confirmation that says how much of its hold comes back.
 */
import { expect, test, type Page } from "@playwright/test";
import { axe } from "./axe";
import { signUpOrIn } from "./sign-in";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const post = (page: Page, path: string, data: unknown) => page.request.post(`${BASE()}${path}`, { data, headers: { origin: BASE() } });
const line = (i: number, text: string) => JSON.stringify({ custom_id: `req-${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "demo-chat", messages: [{ role: "user", content: text }], max_tokens: 8 } });

async function createBatch(page: Page, key: string, lines: string[]): Promise<string> {
  const auth = { authorization: `Bearer ${key}` };
  const file = await page.request.post(`${BASE()}/v1/files`, { headers: auth, multipart: { purpose: "batch", file: { name: "nightly.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(lines.join("\n") + "\n") } } });
  expect(file.status(), await file.text()).toBe(200);
  const b = await page.request.post(`${BASE()}/v1/batches`, { headers: auth, data: { input_file_id: (await file.json()).id, endpoint: "/v1/chat/completions", completion_window: "24h" } });
  expect(b.status(), await b.text()).toBe(200);
  return (await b.json()).id as string;
}

test("batches: progress, cost, downloads and cancel with the hold that comes back", async ({ browser }, info) => {
  const page = await signUpOrIn(browser, process.env.E2E_ADMIN_EMAIL!);
  const me = await (await page.request.get(`${BASE()}/api/console/me`)).json();
  expect((await post(page, `/api/admin/users/${me.user.id}/balance`, { direction: "credit", usd: "5", note: "batches spec" })).status()).toBe(200);
  const key = (await (await post(page, "/api/console/keys", { name: "batches spec", allowedModels: [] })).json()).key.key as string;

  const done = await createBatch(page, key, [line(0, "first"), line(1, "second"), line(2, "please [fail]")]);
  await page.goto("/batches");
  const row = page.getByTestId("batch-row").filter({ hasText: done });
  await expect(row.getByText("completed")).toBeVisible({ timeout: 30_000 });
  await expect(row.getByTestId("batch-progress")).toContainText("2 done · 1 failed / 3");
  await expect(row.getByTestId("batch-cost")).not.toHaveText("$0.00");
  const download = page.waitForEvent("download");
  await row.getByRole("link", { name: "Results" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`${done}_output.jsonl`);
  const errors = await page.request.get(`${BASE()}${await row.getByRole("link", { name: "Errors" }).getAttribute("href")}`);
  expect(await errors.text()).toContain('"custom_id":"req-2"');

  // Enough lines that the batch is still running when it is cancelled.
  const running = await createBatch(page, key, Array.from({ length: 3000 }, (_, i) => line(i, `line ${i}`)));
  await page.reload();
  const open = page.getByTestId("batch-row").filter({ hasText: running });
  await open.getByRole("button", { name: "Cancel", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel batch" });
  await expect(dialog.getByTestId("cancel-returns")).toContainText("held for this batch comes back");
  await shot(page, info, "batches-cancel-dialog");
  await axe(page, "batches cancel dialog");
  await dialog.getByRole("button", { name: "Cancel batch" }).click();
  await expect(dialog.getByTestId("cancel-result")).toBeVisible();
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(open.getByText("cancelled", { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(open.getByTestId("batch-progress")).toContainText("cancelled");
  await expect(open.getByRole("button", { name: "Cancel", exact: true })).toHaveCount(0);
  await shot(page, info, "batches");
  await axe(page, "batches");
});
