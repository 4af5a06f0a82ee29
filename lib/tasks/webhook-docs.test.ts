/** The receiver code in docs/webhooks.md must verify what the gateway sends (and refuse the rest). */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { signatureHeader } from "./webhook-signature";

const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/webhooks.md"), "utf8");
const snippet = /```ts\n(import \{ createHmac[\s\S]*?)```/.exec(doc)?.[1];

describe("docs/webhooks.md receiver example", () => {
  it("is about a dozen lines and verifies our signatures with a five-minute tolerance", async () => {
    expect(snippet).toBeDefined();
    expect(snippet!.trim().split("\n").length).toBeLessThanOrEqual(14);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "doc-")), "verify.ts");
    fs.writeFileSync(file, snippet!);
    const { verifyShimSignature } = (await import(pathToFileURL(file).href)) as {
      verifyShimSignature: (raw: Buffer | string, header: string | undefined, secret: string) => boolean;
    };
    const body = Buffer.from('{"id":"task_1","object":"task","status":"completed"}');
    const now = Math.floor(Date.now() / 1000);
    expect(verifyShimSignature(body, signatureHeader("doc-secret-1", body, now), "doc-secret-1")).toBe(true);
    expect(verifyShimSignature(body, signatureHeader("doc-secret-1", body, now - 299), "doc-secret-1")).toBe(true);
    expect(verifyShimSignature(body, signatureHeader("doc-secret-1", body, now - 301), "doc-secret-1")).toBe(false);
    expect(verifyShimSignature(body, signatureHeader("other-secret", body, now), "doc-secret-1")).toBe(false);
    expect(verifyShimSignature(Buffer.concat([body, Buffer.from(" ")]), signatureHeader("doc-secret-1", body, now), "doc-secret-1")).toBe(false);
    expect(verifyShimSignature(body, undefined, "doc-secret-1")).toBe(false);
    expect(verifyShimSignature(body, "t=abc,v1=zz", "doc-secret-1")).toBe(false);
  });
});
