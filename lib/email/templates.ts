/**
 * Email bodies: one layout (plain text + a small inline-styled HTML alternative) and one function
 * per message. Other features add theirs here and send with sendEmail (send.ts).
 */
import type { EmailMessage } from "./send";

export interface EmailContent {
  subject: string;
  /** Paragraphs of plain text (escaped for HTML). */
  paragraphs: string[];
  action?: { label: string; url: string };
  /** A closing line under the action, e.g. why the reader got this email. */
  footer?: string;
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Renders content as a message for `to`. */
export function renderEmail(to: string, kind: string, c: EmailContent): EmailMessage {
  const text = [...c.paragraphs, ...(c.action ? [`${c.action.label}: ${c.action.url}`] : []), ...(c.footer ? [c.footer] : [])].join("\n\n") + "\n";
  const p = (s: string) => `<p style="margin:0 0 16px;font:15px/1.5 system-ui,sans-serif;color:#18181b">${esc(s)}</p>`;
  const html = [
    `<div style="max-width:560px;margin:0 auto;padding:24px">`,
    ...c.paragraphs.map(p),
    c.action
      ? `<p style="margin:24px 0"><a href="${esc(c.action.url)}" style="display:inline-block;padding:10px 16px;border-radius:6px;background:#18181b;color:#fff;text-decoration:none;font:600 14px system-ui,sans-serif">${esc(c.action.label)}</a></p>` +
        `<p style="margin:0 0 16px;font:12px/1.5 system-ui,sans-serif;color:#71717a">Or open this link: ${esc(c.action.url)}</p>`
      : "",
    c.footer ? `<p style="margin:24px 0 0;font:12px/1.5 system-ui,sans-serif;color:#71717a">${esc(c.footer)}</p>` : "",
    `</div>`,
  ].join("");
  return { to, kind, subject: c.subject, text, html };
}

export function passwordResetEmail(to: string, url: string, validMinutes: number): EmailMessage {
  return renderEmail(to, "password_reset", {
    subject: "Reset your Generation Gateway password",
    paragraphs: [`Someone asked to reset the password of the Generation Gateway account ${to}.`, `The link works once, for ${validMinutes} minutes.`],
    action: { label: "Choose a new password", url },
    footer: "If you did not ask for this, ignore this email: your password stays as it is.",
  });
}

export function verifyEmailEmail(to: string, url: string, validHours: number): EmailMessage {
  return renderEmail(to, "verify_email", {
    subject: "Confirm your email for Generation Gateway",
    paragraphs: [`Confirm that ${to} is your address on Generation Gateway.`, `The link works once, for ${validHours} hours.`],
    action: { label: "Confirm email", url },
    footer: "If you did not create an account, ignore this email.",
  });
}
