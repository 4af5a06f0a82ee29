/**
 * The playground's fields for the new video and image families, driven by the catalog: a
 * Veo-style model (third family, priced per second by resolution and sound) offers resolution,
 * sound, negative prompt and a last frame, and its price follows them before anything is sent
 * (the gateway's own hold function); a token-priced image model's price includes the prompt's
 * bound and grows as the prompt does. Screenshots light and dark at 390 and 1280 px, and axe.
 */
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { axe } from "./axe";
import { signUpOrIn } from "./sign-in";
import { shotsLightDark } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const post = (page: Page, path: string, data: unknown) => page.request.post(`${BASE()}${path}`, { data, headers: { origin: BASE() } });

test.describe.configure({ mode: "serial" });
let page: Page;

test.beforeAll(async ({ browser }) => {
  page = await signUpOrIn(browser, process.env.E2E_ADMIN_EMAIL!);
  const me = await (await page.request.get(`${BASE()}/api/console/me`)).json();
  expect((await post(page, `/api/admin/users/${me.user.id}/balance`, { direction: "credit", usd: "20", note: "playground media spec" })).status()).toBe(200);
  // Veo 3-like: $0.20/s silent, $0.40/s with sound, at 720p and 1080p; 8 s clips with an aspect ratio.
  const veo = await post(page, "/api/admin/models", {
    modelId: "e2e-veo",
    upstreamId: "demo",
    kind: "video",
    family: "third",
    ownedBy: "e2e",
    price: { perSecond: { "720p": 0.2, "1080p": 0.2, "720p:audio": 0.4, "1080p:audio": 0.4 } },
  });
  expect([200, 409]).toContain(veo.status());
  // Gemini 2.5 Flash Image-like: the per-image worst case plus the prompt at $0.30 per million tokens.
  const img = await post(page, "/api/admin/models", {
    modelId: "e2e-image-tokens",
    upstreamId: "demo",
    kind: "image",
    ownedBy: "e2e",
    price: { perImage: { "*": 0.039 }, inputPerMTok: 0.3, imageOutputPerMTok: 30 },
  });
  expect([200, 409]).toContain(img.status());
});

const shots = (name: string, info: TestInfo) => shotsLightDark(page, info, name);

test("a Veo-style model offers resolution, sound, negative prompt and a last frame, priced before sending", async ({}, info) => {
  await page.goto("/playground");
  await page.getByRole("tab", { name: "Video" }).click();
  await expect(async () => {
    await page.getByTestId("video-model").selectOption("e2e-veo");
    await expect(page.getByTestId("video-resolution")).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("video-resolution").locator("option")).toHaveText(["default", "720p", "1080p"]);
  await expect(page.getByTestId("video-audio")).toBeVisible();
  await expect(page.getByTestId("video-negative-prompt")).toBeVisible();
  await expect(page.getByTestId("video-last-frame")).toBeVisible();
  // Sound unsaid is the model's default, the dearer price: 8 s × $0.40.
  await expect(page.getByTestId("video-price")).toContainText("$3.20");
  await page.getByTestId("video-audio").selectOption("off");
  await expect(page.getByTestId("video-price")).toContainText("$1.60");
  await page.getByTestId("video-resolution").selectOption("1080p");
  await expect(page.getByTestId("video-price")).toContainText("$1.60");
  await page.getByTestId("video-prompt").fill("A lighthouse in a storm, waves breaking");
  await page.getByTestId("video-negative-prompt").fill("text, watermark");
  await axe(page, "playground video, Veo-style model");
  await shots("playground-video-veo", info);
});

test("a token-priced image model's price includes the prompt's bound; background and format are offered", async ({}, info) => {
  await page.getByRole("tab", { name: "Image" }).click();
  await expect(async () => {
    await page.getByTestId("image-model").selectOption("e2e-image-tokens");
    await expect(page.getByTestId("image-model")).toHaveValue("e2e-image-tokens", { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("image-background")).toBeVisible();
  await expect(page.getByTestId("image-format").locator("option")).toHaveText(["png", "jpeg", "webp"]);
  // $0.039 per image + (0 bytes + 256) prompt tokens at $0.30/M = 39,000 + 77 µUSD.
  await expect(page.getByTestId("image-price")).toContainText("$0.039077");
  await page.getByTestId("image-prompt").fill("x".repeat(1000));
  // + 1,000 bytes at $0.30/M: 39,000 + ⌈1,256 × 0.3⌉ µUSD.
  await expect(page.getByTestId("image-price")).toContainText("$0.039377");
  await page.getByTestId("image-prompt").fill("A lighthouse on a cliff at dawn");
  await axe(page, "playground image, token-priced model");
  await shots("playground-image-tokens", info);
});
