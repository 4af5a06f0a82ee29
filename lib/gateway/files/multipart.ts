/**
 * A streaming multipart/form-data reader (RFC 7578) for uploads: a file part's bytes are handed
 * on as they arrive (to media storage), never held whole in memory; other fields are small and
 * kept (up to FIELD_LIMIT). `Request.formData()` would buffer the whole body, which a 512 MB
 * upload must not.
 */

/** A field's value larger than this is refused (fields are names, purposes, numbers). */
const FIELD_LIMIT = 64 * 1024;
/** Headers of one part. */
const HEADER_LIMIT = 16 * 1024;

export class MultipartError extends Error {}

export interface Part {
  name: string;
  filename: string | null;
  contentType: string | null;
  /** The part's bytes; read it to its end before asking for the next part. */
  body: AsyncGenerator<Buffer>;
}

export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return null;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

class Reader {
  buf = Buffer.alloc(0);
  private done = false;
  constructor(private readonly it: AsyncIterator<Uint8Array>) {}
  /** Reads one more chunk; false at the end of the body. */
  async more(): Promise<boolean> {
    if (this.done) return false;
    const r = await this.it.next();
    if (r.done) {
      this.done = true;
      return false;
    }
    this.buf = this.buf.length ? Buffer.concat([this.buf, r.value]) : Buffer.from(r.value);
    return true;
  }
  /** Waits until `n` bytes are buffered (false: the body ended first). */
  async need(n: number): Promise<boolean> {
    while (this.buf.length < n) if (!(await this.more())) return false;
    return true;
  }
}

function disposition(headers: string): { name: string; filename: string | null } | null {
  const line = /^content-disposition:\s*form-data(.*)$/im.exec(headers);
  if (!line) return null;
  const name = /;\s*name="((?:[^"\\]|\\.)*)"/i.exec(line[1]!);
  const file = /;\s*filename="((?:[^"\\]|\\.)*)"/i.exec(line[1]!);
  if (!name) return null;
  return { name: name[1]!, filename: file ? file[1]!.replace(/\\(.)/g, "$1") : null };
}

/** The parts of the body, one after another; throws MultipartError on a malformed body. */
export async function* multipartParts(body: AsyncIterable<Uint8Array>, boundary: string): AsyncGenerator<Part> {
  const r = new Reader(body[Symbol.asyncIterator]());
  const first = Buffer.from(`--${boundary}`);
  const delim = Buffer.from(`\r\n--${boundary}`);
  // The preamble (ignored) up to the first boundary.
  for (;;) {
    const i = r.buf.indexOf(first);
    if (i >= 0) {
      r.buf = r.buf.subarray(i + first.length);
      break;
    }
    if (r.buf.length > HEADER_LIMIT || !(await r.more())) throw new MultipartError("The multipart body has no opening boundary.");
  }
  for (;;) {
    // After a boundary: "--" ends the body, CRLF starts a part.
    if (!(await r.need(2))) throw new MultipartError("The multipart body ends inside a boundary.");
    if (r.buf[0] === 0x2d && r.buf[1] === 0x2d) return;
    let end: number;
    while ((end = r.buf.indexOf("\r\n\r\n")) < 0) {
      if (r.buf.length > HEADER_LIMIT || !(await r.more())) throw new MultipartError("A multipart part's headers are malformed.");
    }
    const headers = r.buf.subarray(0, end).toString("utf8");
    r.buf = r.buf.subarray(end + 4);
    const d = disposition(headers);
    if (!d) throw new MultipartError("A multipart part has no Content-Disposition name.");
    const ct = /^content-type:\s*([^\r\n]+)$/im.exec(headers);
    let finished = false;
    const partBody = (async function* () {
      for (;;) {
        const i = r.buf.indexOf(delim);
        if (i >= 0) {
          if (i > 0) yield r.buf.subarray(0, i);
          r.buf = r.buf.subarray(i + delim.length);
          finished = true;
          return;
        }
        // Keep what could be the start of the delimiter; hand on the rest.
        const safe = r.buf.length - (delim.length - 1);
        if (safe > 0) {
          const out = r.buf.subarray(0, safe);
          r.buf = r.buf.subarray(safe);
          yield out;
        }
        if (!(await r.more())) throw new MultipartError("The multipart body ends inside a part.");
      }
    })();
    yield { name: d.name, filename: d.filename, contentType: ct ? ct[1]!.trim() : null, body: partBody };
    if (!finished) for await (const _ of partBody); // the consumer left it unread
  }
}

/** A small field's text (refused above FIELD_LIMIT). */
export async function fieldText(part: Part): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of part.body) {
    size += c.length;
    if (size > FIELD_LIMIT) throw new MultipartError(`The multipart field '${part.name}' is larger than ${FIELD_LIMIT} bytes.`);
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString("utf8");
}
