/** The upload limit of every files route (FILES_MAX_MB), its 413, and the 404 of a file the caller cannot see. */
import { env } from "../../env";
import type { ApiError } from "../errors";

export const maxBytes = () => env().FILES_MAX_MB * 1024 * 1024;

export const fileNotFound = (id: string, param = "file_id"): ApiError => ({ status: 404, type: "invalid_request", code: "not_found", message: `No such File object: ${id.slice(0, 200)}`, param });

export function tooLarge(): ApiError {
  return { status: 413, type: "invalid_request", code: "file_too_large", message: `The file is larger than the upload limit of ${env().FILES_MAX_MB} MB (${maxBytes()} bytes; FILES_MAX_MB).`, param: "file" };
}

export class TooLarge extends Error {}

/** Passes the stream on, counting into `seen`; past `limit` bytes it throws TooLarge. */
export async function* counted(body: AsyncIterable<Buffer>, limit: number, seen: { bytes: number }): AsyncGenerator<Buffer> {
  for await (const c of body) {
    seen.bytes += c.length;
    if (seen.bytes > limit) throw new TooLarge();
    yield c;
  }
}
