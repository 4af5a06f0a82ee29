import { describe, expect, it } from "vitest";
import { boundaryOf, fieldText, multipartParts, MultipartError } from "./multipart";

async function* chunked(buf: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function read(body: Buffer, boundary: string, size: number) {
  const out: Record<string, { filename: string | null; value: Buffer }> = {};
  for await (const p of multipartParts(chunked(body, size), boundary)) {
    if (p.filename !== null) {
      const parts: Buffer[] = [];
      for await (const c of p.body) parts.push(c);
      out[p.name] = { filename: p.filename, value: Buffer.concat(parts) };
    } else out[p.name] = { filename: null, value: Buffer.from(await fieldText(p)) };
  }
  return out;
}

describe("multipartParts", () => {
  // Bytes that look like a boundary's start, CRLFs and dashes inside the file must come through whole.
  const file = Buffer.concat([Buffer.from("line one\r\n--not-the-boundary\r\n-"), Buffer.alloc(70_000, 7), Buffer.from("\r\n--X")]);
  const body = Buffer.concat([
    Buffer.from('preamble\r\n--XYZ\r\nContent-Disposition: form-data; name="file"; filename="in.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n'),
    file,
    Buffer.from('\r\n--XYZ\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--XYZ--\r\n'),
  ]);

  it.each([1, 7, 4096, 1 << 20])("reads every part whatever the chunk size (%i bytes)", async (size) => {
    const got = await read(body, "XYZ", size);
    expect(got.file!.filename).toBe("in.jsonl");
    expect(got.file!.value.equals(file)).toBe(true);
    expect(got.purpose!.value.toString()).toBe("batch");
  });

  it("refuses a body that ends inside a part", async () => {
    await expect(read(body.subarray(0, 200), "XYZ", 64)).rejects.toBeInstanceOf(MultipartError);
  });

  it("finds the boundary in the content type, quoted or not", () => {
    expect(boundaryOf("multipart/form-data; boundary=abc")).toBe("abc");
    expect(boundaryOf('multipart/form-data; boundary="a b"')).toBe("a b");
    expect(boundaryOf("application/json")).toBeNull();
  });
});
