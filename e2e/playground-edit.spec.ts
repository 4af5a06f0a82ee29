/**
 * The playground's Image tab edits uploaded images: Edit mode, one image and a PNG mask, the
 * price shown before sending, the multipart POST /v1/images/edits through the playground proxy,
 * the result with its cost, and the books (the request-log row and the balance) agreeing with it.
 * A mask that is not a PNG is refused in place; one of the wrong size the gateway refuses, and
 * its 400 naming `mask` is shown. Screenshots light and dark at 390 and 1280 px, and axe.
 */
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { PNG } from "pngjs";
import { axe } from "./axe";
import { signUpOrIn } from "./sign-in";
import { shotsLightDark } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const post = (page: Page, path: string, data: unknown) => page.request.post(`${BASE()}${path}`, { data, headers: { origin: BASE() } });

/** A real PNG of `w`×`h`; with `alpha`, its left half transparent (the mask's "change this"). */
function png(w: number, h: number, alpha = false): Buffer {
  const p = new PNG({ width: w, height: h, colorType: alpha ? 6 : 2 });
  for (let i = 0; i < w * h; i++) {
    p.data[i * 4] = 40;
    p.data[i * 4 + 1] = 100;
    p.data[i * 4 + 2] = 220;
    p.data[i * 4 + 3] = alpha && i % w < w / 2 ? 0 : 255;
  }
  return PNG.sync.write(p, { colorType: alpha ? 6 : 2 });
}
const IMAGE = { name: "harbour.png", mimeType: "image/png", buffer: png(64, 64) };
const MASK = { name: "mask.png", mimeType: "image/png", buffer: png(64, 64, true) };
const SMALL_MASK = { name: "small-mask.png", mimeType: "image/png", buffer: png(32, 32, true) };
// The JPEG start-of-image marker: the form looks at the type, never sends it.
const JPEG_MASK = { name: "mask.jpg", mimeType: "image/jpeg", buffer: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]) };

test.describe.configure({ mode: "serial", timeout: 120_000 });
let page: Page;

test.beforeAll(async ({ browser }) => {
  page = await signUpOrIn(browser, `e2e-pgedit-${Date.now()}@example.test`);
  const admin = await signUpOrIn(browser, process.env.E2E_ADMIN_EMAIL!);
  const me = await (await page.request.get(`${BASE()}/api/console/me`)).json();
  expect((await post(admin, `/api/admin/users/${me.user.id}/balance`, { direction: "credit", usd: "5", note: "playground edit spec" })).status()).toBe(200);
  await admin.context().close();
});

const shots = (name: string, info: TestInfo) => shotsLightDark(page, info, name);

async function openEdit() {
  await page.goto("/playground");
  await page.getByRole("tab", { name: "Image" }).click();
  // A click before hydration is not seen by React: pick Edit until its file input shows.
  await expect(async () => {
    await page.getByTestId("image-mode").getByText("Edit", { exact: true }).click();
    await expect(page.getByTestId("edit-images")).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await page.getByTestId("image-model").selectOption("demo-image");
  await page.getByTestId("image-quality").selectOption("low");
  await page.getByTestId("image-size").selectOption("1024x1024");
}

test("edit one image with a mask: price before sending, the result with its cost, the books agree", async ({}, info) => {
  await openEdit();
  const balance = async () => (await (await page.request.get(`${BASE()}/api/console/me`)).json()).account.balanceMicroUsd as number;
  const before = await balance();

  // Sending without an image is refused in place.
  await page.getByTestId("image-prompt").fill("Make the sky a sunset orange");
  await page.getByTestId("image-generate").click();
  await expect(page.getByTestId("edit-images")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("alert").filter({ hasText: "Pick the image to edit." })).toBeVisible();

  await page.getByTestId("edit-images").setInputFiles([IMAGE]);
  await expect(page.getByTestId("edit-thumbnails").getByRole("img")).toHaveCount(1);
  await page.getByTestId("edit-mask").setInputFiles([MASK]);
  await expect(page.getByTestId("edit-mask-picked")).toContainText("mask.png");
  // A per-image price: the same as generating at low quality, 1024x1024.
  await expect(page.getByTestId("image-price")).toContainText("$0.021");
  await expect(page.getByTestId("image-generate")).toHaveText("Edit image");
  await axe(page, "playground image edit, files picked");
  await shots("playground-edit-form", info);

  const answered = page.waitForResponse((r) => r.url().endsWith("/api/playground/v1/images/edits"));
  await page.getByTestId("image-generate").click();
  const res = await answered;
  expect(res.status(), await res.text()).toBe(200);
  expect(res.request().headers()["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
  await expect(page.getByTestId("image-result")).toBeVisible();
  await expect(page.getByTestId("image-result")).toHaveAttribute("alt", "Edited: Make the sky a sunset orange");
  await expect(page.getByTestId("image-cost")).toHaveText("$0.021");
  await expect(page.getByTestId("image-download")).toHaveAttribute("download", /\.png$/);

  // The books: the request-log row says what the page says, and the balance moved by exactly that.
  const id = res.headers()["x-request-id"]!;
  await expect.poll(async () => (await page.request.get(`${BASE()}/api/playground/requests/${id}`)).status()).toBe(200);
  const row = await (await page.request.get(`${BASE()}/api/playground/requests/${id}`)).json();
  expect(row).toMatchObject({ requestId: id, model: "demo-image", status: 200, costMicroUsd: 21_000, source: "playground" });
  await expect.poll(balance).toBe(before - 21_000);
  await axe(page, "playground image edit, result");
  await shots("playground-edit-result", info);

  // Removing the image empties the list; the mask stays until removed.
  await page.getByRole("button", { name: "Remove harbour.png" }).click();
  await expect(page.getByTestId("edit-thumbnails")).toHaveCount(0);
});

test("a mask that is not a PNG is refused in place; one of the wrong size is refused by the gateway, naming mask", async ({}, info) => {
  await openEdit();
  await page.getByTestId("image-prompt").fill("Add a red boat");
  await page.getByTestId("edit-images").setInputFiles([IMAGE]);
  await page.getByTestId("edit-mask").setInputFiles([JPEG_MASK]);
  await expect(page.getByTestId("edit-mask")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("alert").filter({ hasText: "The mask must be a PNG" })).toBeVisible();
  await expect(page.getByTestId("edit-mask-picked")).toHaveCount(0);
  await axe(page, "playground image edit, mask refused in place");
  await shots("playground-edit-mask-not-png", info);

  await page.getByTestId("edit-mask").setInputFiles([SMALL_MASK]);
  await expect(page.getByTestId("edit-mask")).not.toHaveAttribute("aria-invalid", "true");
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/playground/v1/images/edits"));
  await page.getByTestId("image-generate").click();
  expect((await answered).status()).toBe(400);
  const callout = page.getByTestId("playground-error");
  await expect(callout).toContainText("The request was refused");
  await expect(callout).toContainText("mask is 32x32; it must have the first image's size (64x64)");
  await expect(page.getByTestId("image-result")).toHaveCount(0);
  await axe(page, "playground image edit, mask refused by the gateway");
  await shots("playground-edit-mask-wrong-size", info);
});
