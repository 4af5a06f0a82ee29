import fs from "node:fs";
import path from "node:path";
import { parseMail } from "../tests/fakes/smtp-inbox";

/**
 * The newest message to `to` whose subject starts with `subject`, waiting up to 15 s for it: the
 * e2e server sends through a real SMTP server on loopback that writes each message to E2E_MAIL_DIR.
 */
export async function mailTo(to: string, subject = "") {
  const dir = process.env.E2E_MAIL_DIR!;
  for (let i = 0; i < 150; i++) {
    for (const f of fs.readdirSync(dir).sort().reverse()) {
      const m = await parseMail(fs.readFileSync(path.join(dir, f), "utf8"));
      if (m.to.includes(to) && m.subject.startsWith(subject)) return m;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no "${subject}" email to ${to}`);
}
