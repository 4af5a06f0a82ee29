import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpInbox, type SmtpInbox } from "../../tests/fakes/smtp-inbox";
import { resetEnvCache } from "../env";
import { emailDelivery, sendEmail } from "./send";
import { passwordResetEmail, renderEmail } from "./templates";

let inbox: SmtpInbox;
const saved = { SMTP_URL: process.env.SMTP_URL, EMAIL_FROM: process.env.EMAIL_FROM, NODE_ENV: process.env.NODE_ENV };

beforeAll(async () => {
  inbox = await startSmtpInbox({ user: "mailer", pass: "s3cret" });
});

afterAll(async () => {
  await inbox.close();
  Object.assign(process.env, saved);
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  resetEnvCache();
});

function setEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
}

describe("sendEmail", () => {
  it("delivers text and HTML over SMTP with authentication, from EMAIL_FROM", async () => {
    setEnv({ SMTP_URL: inbox.url, EMAIL_FROM: "Gateway <billing@gateway.test>" });
    expect(emailDelivery()).toBe("smtp");
    const r = await sendEmail(passwordResetEmail("Someone@Example.test", "http://gateway.test/reset-password?token=abc", 30));
    expect(r.delivered).toBe("smtp");
    const mail = await inbox.waitFor("someone@example.test");
    expect(mail.from).toBe('"Gateway" <billing@gateway.test>');
    expect(mail.subject).toBe("Reset your Generation Gateway password");
    expect(mail.text).toContain("http://gateway.test/reset-password?token=abc");
    expect(mail.html).toContain('href="http://gateway.test/reset-password?token=abc"');
  });

  it("escapes HTML in the HTML alternative", () => {
    const m = renderEmail("a@b.test", "t", { subject: "s", paragraphs: ["<b>x</b> & y"], action: { label: "Go", url: 'http://x.test/?a="1"' } });
    expect(m.html).toContain("&lt;b&gt;x&lt;/b&gt; &amp; y");
    expect(m.html).toContain('href="http://x.test/?a=&quot;1&quot;"');
    expect(m.text).toContain("<b>x</b> & y");
  });

  it("writes to the log in development and sends nothing in production without SMTP_URL", async () => {
    setEnv({ SMTP_URL: undefined, NODE_ENV: "development" });
    expect(emailDelivery()).toBe("log");
    expect((await sendEmail(renderEmail("dev@example.test", "t", { subject: "s", paragraphs: ["p"] }))).delivered).toBe("log");
    setEnv({ NODE_ENV: "production" });
    expect(emailDelivery()).toBe("off");
    expect((await sendEmail(renderEmail("prod@example.test", "t", { subject: "s", paragraphs: ["p"] }))).delivered).toBe("off");
    expect(inbox.messages.some((m) => m.to.includes("dev@example.test") || m.to.includes("prod@example.test"))).toBe(false);
  });

  it("throws when the SMTP server refuses the login", async () => {
    setEnv({ SMTP_URL: inbox.url.replace("s3cret", "wrong"), NODE_ENV: "test" });
    await expect(sendEmail(renderEmail("x@example.test", "t", { subject: "s", paragraphs: ["p"] }))).rejects.toThrow();
  });
});
