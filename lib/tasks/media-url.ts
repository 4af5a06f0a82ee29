/**
 * Signed result URLs (`result.videos[].url`): unguessable links under PUBLIC_BASE_URL that need
 * no API key and stop working at the task's `expires_at` (docs/design.md "Result URLs"). The key
 * derives from ENCRYPTION_KEY (or the generated one under DATA_DIR), which every instance
 * sharing a database already shares.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { dataDirSecret } from "../crypto";
import { env } from "../env";
import { processSingleton } from "../process-singleton";
import type { Result } from "../result";

const key = processSingleton("gateway.mediaUrlKey", () => {
  const material = env().ENCRYPTION_KEY ?? dataDirSecret("encryption.key");
  return createHash("sha256").update(`media-url:v1:${material}`).digest();
});

export function mediaFileName(index: number): string {
  return `video-${index}.mp4`;
}

function mac(taskId: string, file: string, expiresAt: number): string {
  return createHmac("sha256", key()).update(`${taskId}/${file}/${expiresAt}`).digest("hex");
}

/** `{PUBLIC_BASE_URL}/v1/media/{task id}/video-0.mp4?expires=…&signature=…` */
export function signedMediaUrl(taskId: string, index: number, expiresAt: number, base = env().publicBaseUrl): string {
  const file = mediaFileName(index);
  return `${base}/v1/media/${encodeURIComponent(taskId)}/${file}?expires=${expiresAt}&signature=${mac(taskId, file, expiresAt)}`;
}

export type MediaUrlCheck = Result<number, "bad_signature" | "expired">;

export function verifyMediaUrl(taskId: string, file: string, expires: string | null, signature: string | null, nowS = Math.floor(Date.now() / 1000)): MediaUrlCheck {
  const m = /^video-(\d{1,2})\.mp4$/.exec(file);
  if (!m || !expires || !/^\d{1,12}$/.test(expires) || !signature || !/^[0-9a-f]{64}$/.test(signature)) return { ok: false, error: "bad_signature" };
  const expected = Buffer.from(mac(taskId, file, Number(expires)), "hex");
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) return { ok: false, error: "bad_signature" };
  if (nowS >= Number(expires)) return { ok: false, error: "expired" };
  return { ok: true, value: Number(m[1]) };
}
