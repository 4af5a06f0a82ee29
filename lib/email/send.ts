/**
 * Console email (password reset, email verification, invites, alerts). SMTP through nodemailer
 * when SMTP_URL is set. Without it, outside production, a message is written to the log instead
 * so a developer can follow its link; that line holds the message's link, which is a
 * credential (a reset link signs whoever has it in), so it is never written in production:
 * there the message is dropped and callers show "this gateway does not send email"
 * (emailDelivery() === "off"). Decision 0017.
 */
import nodemailer, { type Transporter } from "nodemailer";
import { env, inProduction } from "../env";
import { logger } from "../logger";
import { processSingleton } from "../process-singleton";

export interface EmailMessage {
  to: string;
  subject: string;
  /** Plain-text body; always sent. */
  text: string;
  /** HTML alternative (templates.ts renders both). */
  html?: string;
  /** What kind of message, for the log line ("password_reset", "verify_email", "invite", …). */
  kind: string;
}

export type EmailDelivery = "smtp" | "log" | "off";

/** How email leaves this gateway: SMTP, the development log, or not at all. */
export function emailDelivery(): EmailDelivery {
  if (env().SMTP_URL) return "smtp";
  return inProduction() ? "off" : "log";
}

/** True when a message sent now reaches someone (features that need email check this). */
export function emailAvailable(): boolean {
  return emailDelivery() !== "off";
}

export function emailFrom(): string {
  const e = env();
  return e.EMAIL_FROM ?? `Generation Gateway <no-reply@${new URL(e.publicBaseUrl).hostname}>`;
}

const smtp = processSingleton("gateway.smtp", () => ({ current: undefined as { url: string; transport: Transporter } | undefined }));

function transport(url: string): Transporter {
  const g = smtp();
  if (g.current?.url === url) return g.current.transport;
  g.current?.transport.close();
  // Pooled: alert bursts reuse connections. Timeouts keep a dead server from holding a request.
  const t = nodemailer.createTransport(url.includes("?") || !/^smtps?:/.test(url) ? url : `${url}?pool=true`, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  } as object);
  g.current = { url, transport: t };
  return t;
}

export type SendResult = { delivered: EmailDelivery; messageId?: string };

/**
 * Sends one message. Throws when the SMTP server refuses or cannot be reached (callers that must
 * not reveal whether an address exists catch and log). Returns { delivered: "off" } when email is
 * not configured in production.
 */
export async function sendEmail(msg: EmailMessage): Promise<SendResult> {
  const how = emailDelivery();
  if (how === "off") {
    logger().warn({ kind: msg.kind }, "email not sent: SMTP_URL is not set");
    return { delivered: "off" };
  }
  if (how === "log") {
    // Development only (see the header): the text carries the link the recipient needs.
    logger().info({ kind: msg.kind, to: msg.to, subject: msg.subject, text: msg.text }, "email (SMTP_URL not set; development: written to the log)");
    return { delivered: "log" };
  }
  const info = await transport(env().SMTP_URL!).sendMail({ from: emailFrom(), to: msg.to, subject: msg.subject, text: msg.text, html: msg.html });
  logger().info({ kind: msg.kind, messageId: info.messageId }, "email sent");
  return { delivered: "smtp", messageId: info.messageId };
}
