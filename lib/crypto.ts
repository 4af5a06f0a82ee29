/**
 * Secrets at rest (upstream API keys, webhook secrets): AES-256-GCM with ENCRYPTION_KEY, or a
 * key generated once under DATA_DIR. Several instances sharing a database must share the key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env } from "./env";
import { processSingleton } from "./process-singleton";


/** Whether a presented secret equals ours, in a time that does not tell how much of it matched. */
export function safeEqual(presented: string, secret: string): boolean {
  const x = Buffer.from(presented);
  const y = Buffer.from(secret);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The token of an `Authorization: Bearer …` header ("" when there is none). */
export function bearerToken(authorization: string | null | undefined): string {
  return /^bearer\s+(.+)$/i.exec(authorization ?? "")?.[1] ?? "";
}

/** Reads (or creates, mode 0600) a secret file under DATA_DIR. */
export function dataDirSecret(name: string, bytes = 32): string {
  const dir = env().DATA_DIR;
  const file = path.join(dir, name);
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(dir, { recursive: true });
    const value = randomBytes(bytes).toString("base64url");
    try {
      fs.writeFileSync(file, value, { mode: 0o600, flag: "wx" });
      return value;
    } catch {
      return fs.readFileSync(file, "utf8").trim(); // another process won the race
    }
  }
}

const key = processSingleton("gateway.encryptionKey", () => {
  const material = env().ENCRYPTION_KEY ?? dataDirSecret("encryption.key");
  return createHash("sha256").update(material).digest();
});

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function encryptSecret(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
}

export function decryptSecret(sealed: string): string {
  const [v, iv, tag, ct] = sealed.split(".");
  if (v !== "v1" || !iv || !tag || ct === undefined) throw new Error("not an encrypted secret");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
}
