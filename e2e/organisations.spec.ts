/**
 * Organisations as people use them: an owner creates an organisation from the switcher, tops it
 * up, and invites a member with a monthly cap; the member follows the emailed link (a real SMTP
 * server on loopback), creates an account,
 * joins, creates a key and spends until the cap answers 402 naming it, and the owner gets the
 * cap-reached email; the member sees no billing or ledger; the owner sees the member's spend, then
 * sets a daily budget on the member in Organisation → Budgets, which refuses the member's key with
 * 402 naming it, shows as reached and emails the owner.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { linkIn } from "../tests/fakes/smtp-inbox";
import { mailTo } from "./mail";
import { shot } from "./shots";

const BASE = () => process.env.E2E_BASE_URL!;
const PASSWORD = "correct horse battery staple";
const stamp = Date.now();
const ownerEmail = `org-owner-${stamp}@example.test`;
const memberEmail = `org-member-${stamp}@example.test`;

test.describe.configure({ mode: "serial" });
test.use({ baseURL: process.env.E2E_BASE_URL });

let owner: Page;
let member: Page;
let inviteLink = "";
let memberKey = "";

/** No WCAG 2 A/AA violations axe can find on the page as it is now. */
async function accessible(page: Page) {
  const r = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

async function signUpHere(page: Page, email: string) {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
}

test.beforeAll(async ({ browser }) => {
  owner = await (await browser.newContext({ baseURL: BASE() })).newPage();
  member = await (await browser.newContext({ baseURL: BASE() })).newPage();
});

test("the owner creates an organisation from the switcher and tops it up", async ({}, info) => {
  await owner.goto("/signup");
  await signUpHere(owner, ownerEmail);
  await expect(owner).toHaveURL(/\/overview/);
  const switcher = owner.getByTestId("org-switcher").first();
  await expect(switcher.locator("option").first()).toHaveText(`${ownerEmail} (personal)`);
  await switcher.selectOption({ label: "New organisation…" });
  await expect(owner).toHaveURL(/\/organisation\?new=1/);
  await owner.getByTestId("new-org-name").fill("Acme Research");
  await owner.getByRole("button", { name: "Create organisation" }).click();
  await expect(owner.getByRole("heading", { name: "Acme Research" })).toBeVisible();
  await expect(owner.getByTestId("org-switcher").first()).toHaveValue(/^acct_/);
  await shot(owner, info, "organisation-new");

  await owner.getByRole("link", { name: "Billing" }).first().click();
  await owner.getByRole("button", { name: "$10", exact: true }).click();
  await owner.getByTestId("checkout-button").click();
  await expect(owner).toHaveURL(new RegExp(`^${process.env.E2E_FAKE_STRIPE_URL}/pay/`));
  await owner.getByTestId("fake-stripe-pay").click();
  await expect(owner.getByTestId("checkout-paid")).toContainText("$10.00 added");
  const me = await (await owner.request.get(`${BASE()}/api/console/me`)).json();
  expect(me.org).toMatchObject({ name: "Acme Research", role: "owner", personal: false });
  expect(me.account.balanceMicroUsd).toBe(10_000_000);
});

test("the owner invites a member with a monthly cap", async ({}, info) => {
  await owner.goto("/organisation");
  await owner.getByTestId("invite-email").fill(memberEmail);
  await owner.getByTestId("invite-role").selectOption("member");
  await owner.getByTestId("invite-cap").fill("0.002");
  await owner.getByRole("button", { name: "Send invite" }).click();
  await expect(owner.getByText(`Invitation emailed to ${memberEmail}.`)).toBeVisible();
  const mail = await mailTo(memberEmail);
  expect(mail.subject).toContain("Acme Research");
  inviteLink = linkIn(mail, `${BASE()}/join?token=oinv_`);
  await expect(owner.getByRole("table", { name: "Pending invitations" })).toContainText(memberEmail);
  await shot(owner, info, "organisation-invite");
  await accessible(owner);
});

test("the invitee creates an account from the link and joins", async ({}, info) => {
  await member.goto(inviteLink);
  await expect(member.getByRole("heading", { name: "Join Acme Research" })).toBeVisible();
  await shot(member, info, "join-signed-out");
  await accessible(member);
  await member.getByTestId("join-signup").click();
  await expect(member).toHaveURL(/\/signup\?callbackUrl=/);
  await signUpHere(member, memberEmail);
  await expect(member).toHaveURL(/\/join\?token=/);
  await member.getByTestId("accept-invite").click();
  await expect(member).toHaveURL(/\/overview/);
  await expect(member.getByTestId("org-switcher").first().locator("option:checked")).toHaveText("Acme Research");
  // A member sees no balance, billing or webhooks: their month against their cap instead.
  await expect(member.getByTestId("header-member-spend")).toContainText("this month");
  await expect(member.getByRole("link", { name: "Billing" })).toHaveCount(0);
  await expect(member.getByRole("link", { name: "Webhooks" })).toHaveCount(0);
  expect((await member.request.get(`${BASE()}/api/console/ledger`)).status()).toBe(403);
  await shot(member, info, "member-overview");
  // The link worked once.
  await member.goto(inviteLink);
  await expect(member.getByText("This invitation has already been used.")).toBeVisible();
});

test("the member creates a key and spends until the cap answers 402", async ({}, info) => {
  await member.goto("/keys");
  await member.getByTestId("create-key-button").click();
  await member.getByLabel("Name").fill("member key");
  await member.getByTestId("create-key-submit").click();
  memberKey = (await member.getByTestId("new-key-value").textContent())!;
  expect(memberKey).toMatch(/^sk-/);
  await member.getByRole("button", { name: "I have copied it" }).click();

  let ok = 0;
  let refused: { status: number; body: any } | null = null;
  for (let i = 0; i < 200 && !refused; i++) {
    const r = await member.request.post(`${BASE()}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${memberKey}` },
      data: { model: "demo-chat", messages: [{ role: "user", content: `request ${i}` }] },
    });
    if (r.status() === 200) ok++;
    else refused = { status: r.status(), body: await r.json() };
  }
  expect(ok).toBeGreaterThan(0);
  expect(refused?.status).toBe(402);
  expect(refused?.body.error.code).toBe("member_cap_exceeded");
  expect(refused?.body.error.message).toContain("$0.002");
  const me = await (await member.request.get(`${BASE()}/api/console/me`)).json();
  expect(me.member.monthlyCapMicroUsd).toBe(2_000);
  expect(me.member.monthSpentMicroUsd).toBeGreaterThan(0);
  expect(me.member.monthSpentMicroUsd).toBeLessThanOrEqual(2_000);
  await member.goto("/usage");
  await expect(member.getByRole("table").first()).toContainText("demo-chat");
  await expect(member.getByTestId("header-member-spend")).toContainText("/ $0.002");
  await shot(member, info, "member-usage");
});

test("the owner sees the member's spend and key; the organisation paid for it", async ({}, info) => {
  await owner.goto("/organisation");
  const row = owner.getByTestId(`member-${memberEmail}`);
  await expect(row).toContainText("Member");
  await expect(row).not.toContainText("$0.00");
  await owner.goto("/keys");
  await expect(owner.getByTestId("key-row").filter({ hasText: "member key" })).toHaveCount(1);
  await expect(owner.getByTestId("key-row").filter({ hasText: "member key" })).toContainText(`by ${memberEmail}`);
  // Usage per member (applied as picked): the member's requests, and none for the owner, who made none.
  await owner.goto("/usage");
  await owner.getByLabel("Member").selectOption({ label: memberEmail });
  await expect(owner).toHaveURL(/memberId=/);
  await expect(owner.getByRole("table").first()).toContainText("demo-chat");
  await owner.getByLabel("Member").selectOption({ label: ownerEmail });
  await expect(owner.getByText("No requests match these filters")).toBeVisible();
  const me = await (await owner.request.get(`${BASE()}/api/console/me`)).json();
  expect(me.account.balanceMicroUsd).toBeLessThan(10_000_000);
  await shot(owner, info, "organisation-members");
  await owner.goto("/organisation");
  await expect(owner.getByTestId(`member-${memberEmail}`)).toBeVisible();
  await accessible(owner);
});

test("the owner gets an email when the member's cap stops them", async () => {
  const mail = await mailTo(ownerEmail, "Monthly cap reached");
  expect(mail.subject).toBe(`Monthly cap reached: ${memberEmail} in Acme Research`);
  expect(mail.text).toContain("monthly cap of $0.002");
});

test("the owner sets a daily budget on the member; it refuses their key, shows as reached and emails the owner", async ({}, info) => {
  await owner.goto("/organisation");
  // The cap steps aside so the budget is what stops the member.
  await owner.getByTestId(`cap-input-${memberEmail}`).fill("");
  await owner.getByTestId(`member-${memberEmail}`).getByRole("button", { name: "Save" }).click();
  await expect(owner.getByTestId(`cap-input-${memberEmail}`)).toHaveValue("");
  const form = owner.getByRole("form", { name: "Set a budget" });
  await form.getByLabel("Covers").selectOption({ label: `Member: ${memberEmail}` });
  await form.getByLabel("Starts again").selectOption("day");
  await form.getByLabel("Limit (USD)", { exact: true }).fill("ten");
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(form.getByText("Enter a dollar amount such as 25 or 0.50.")).toBeVisible();
  const spent = (await (await member.request.get(`${BASE()}/api/console/me`)).json()).member.monthSpentMicroUsd as number;
  // Today's spend so far counts: the budget leaves room for a few more requests.
  // A demo-chat request holds up to $0.0015 (1,024 output tokens): room for a few.
  const limit = (spent + 6_000) / 1_000_000;
  await form.getByLabel("Limit (USD)", { exact: true }).fill(String(limit));
  await form.getByLabel("Soft limit (USD)").fill(String((spent + 500) / 1_000_000));
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(form.getByTestId("budget-saved")).toContainText(`Saved: ${memberEmail}, daily.`);
  const row = owner.getByTestId("budget-row").filter({ hasText: memberEmail });
  await expect(row).toContainText("Daily");

  let refused: { status: number; body: any } | null = null;
  for (let i = 0; i < 200 && !refused; i++) {
    const r = await member.request.post(`${BASE()}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${memberKey}` },
      data: { model: "demo-chat", messages: [{ role: "user", content: `budget ${i}` }] },
    });
    if (r.status() !== 200) refused = { status: r.status(), body: await r.json() };
  }
  expect(refused?.status).toBe(402);
  expect(refused?.body.error.code).toBe("budget_exceeded");
  expect(refused?.body.error.message).toMatch(/^Your daily budget (\(\$[0-9.]+\) is reached|\(\$[0-9.]+ for \d{4}-\d{2}-\d{2}\) has \$[0-9.]+ left)/);
  // The playground counts against it too.
  const pg = await member.request.post(`${BASE()}/api/playground/v1/chat/completions`, { headers: { origin: BASE() }, data: { model: "demo-chat", messages: [{ role: "user", content: "hi" }] } });
  expect(pg.status()).toBe(402);

  await owner.reload();
  // Refused once what is left is less than a request's worst case: nearly reached, or reached.
  await expect(row).toContainText(/Nearly reached|Reached/);
  await expect(row.getByRole("progressbar")).toHaveAttribute("aria-valuenow", /^([7-9]\d|100)$/);
  await shot(owner, info, "organisation-budgets");
  await accessible(owner);
  const soft = await mailTo(ownerEmail, "Budget soft limit reached");
  expect(soft.text).toContain(`The daily budget of ${memberEmail}`);
  const reached = await mailTo(ownerEmail, "Budget reached");
  expect(reached.text).toContain(`The daily budget of ${memberEmail} of Acme Research is reached`);
});
