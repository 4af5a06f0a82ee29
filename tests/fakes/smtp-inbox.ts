/**
 * A real SMTP server on loopback (smtp-server) that keeps what arrives, parsed with mailparser.
 * `dir` also writes each message as a .eml file, for readers in another process (Playwright).
 */
import fs from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpInbox {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** The first message to `to` matching `match`, waiting up to `timeoutMs` for it. */
  waitFor(to: string, match?: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function parseMail(raw: string): Promise<ReceivedMail> {
  const p = await simpleParser(raw);
  const addrs = (a: typeof p.to) => (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => (v.address ?? "").toLowerCase()));
  return { from: p.from?.text ?? "", to: addrs(p.to), subject: p.subject ?? "", text: p.text ?? "", html: typeof p.html === "string" ? p.html : "", raw };
}

/** The first URL in a message's text starting with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const m = mail.text.match(/https?:\/\/\S+/g)?.find((u) => u.startsWith(prefix));
  if (!m) throw new Error(`no ${prefix} link in: ${mail.text}`);
  return m;
}

export async function startSmtpInbox(opts: { dir?: string; user?: string; pass?: string } = {}): Promise<SmtpInbox> {
  const messages: ReceivedMail[] = [];
  let seq = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: opts.user ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !opts.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.pass) return cb(null, { user: auth.username });
      cb(new Error("Invalid username or password"));
    },
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        try {
          messages.push(await parseMail(raw));
          if (opts.dir) fs.writeFileSync(path.join(opts.dir, `${Date.now()}-${seq++}.eml`), raw);
          cb();
        } catch (err) {
          cb(err as Error);
        }
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  const auth = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass ?? "")}@` : "";
  return {
    url: `smtp://${auth}127.0.0.1:${port}`,
    port,
    messages,
    async waitFor(to, match = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = messages.find((x) => x.to.includes(to.toLowerCase()) && match(x));
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`no email to ${to} within ${timeoutMs} ms (got: ${messages.map((x) => `${x.to.join(",")}: ${x.subject}`).join("; ") || "none"})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
