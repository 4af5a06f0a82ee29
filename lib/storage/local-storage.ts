/** Media in a local folder. Writes go to a temporary file renamed into place when complete. */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { assertSafeKey, contentTypeFor, type ByteRange, type MediaStorage, type StoredObject } from "./media-storage";

export class LocalStorage implements MediaStorage {
  readonly kind = "local" as const;
  constructor(readonly root: string) {}

  private file(key: string): string {
    assertSafeKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, body: AsyncIterable<Uint8Array>, _contentType: string): Promise<{ size: number }> {
    const target = this.file(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.tmp-${randomBytes(6).toString("hex")}`;
    try {
      await pipeline(Readable.from(body), fs.createWriteStream(tmp, { mode: 0o600 }));
      await fsp.rename(tmp, target);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    return { size: (await fsp.stat(target)).size };
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const st = await fsp.stat(this.file(key));
      return st.isFile() ? { size: st.size, contentType: contentTypeFor(key) } : null;
    } catch {
      return null;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    const file = this.file(key);
    try {
      await fsp.access(file);
    } catch {
      return null;
    }
    return fs.createReadStream(file, range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.file(key), { force: true });
  }
}
