import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { signatureHeader, verifySignature } from "./webhook-signature";

describe("webhook signature", () => {
  it("matches a known golden vector", () => {
    const body = '{"id":"task_123","status":"succeeded","type":"video.task.updated"}';
    expect(signatureHeader("whsec_shim_test_secret", body, 1700000000)).toBe(
      "t=1700000000,v1=14509ba0a35426b30cae7accb5e0e3c43d78ee924e4ffa782f2b3b34da17ff0d",
    );
  });

  it("is verified by stripe-node as an independent implementation", () => {
    const body = '{"id":"task_abc","object":"task","status":"completed"}';
    const now = Math.floor(Date.now() / 1000);
    const header = signatureHeader("a-secret-of-some-length", body, now);
    const stripe = new Stripe("sk_test_x");
    expect(() => stripe.webhooks.signature!.verifyHeader(body, header, "a-secret-of-some-length", 300)).not.toThrow();
    expect(() => stripe.webhooks.signature!.verifyHeader(body + " ", header, "a-secret-of-some-length", 300)).toThrow();
  });

  it("refuses tampering, other secrets, stale and malformed headers", () => {
    const body = '{"a":1}';
    const h = signatureHeader("secret-one", body, 1_000_000);
    expect(verifySignature(h, body, "secret-one", { nowS: 1_000_100 })).toEqual({ ok: true, value: 1_000_000 });
    expect(verifySignature(h, '{"a":2}', "secret-one", { nowS: 1_000_100 })).toMatchObject({ error: "mismatch" });
    expect(verifySignature(h, body, "secret-two", { nowS: 1_000_100 })).toMatchObject({ error: "mismatch" });
    expect(verifySignature(h, body, "secret-one", { nowS: 1_000_301 })).toMatchObject({ error: "too_old" });
    expect(verifySignature(h, body, "secret-one", { nowS: 999_000 })).toMatchObject({ error: "in_future" });
    expect(verifySignature("v1=abc", body, "secret-one")).toMatchObject({ error: "malformed" });
    expect(verifySignature(undefined, body, "secret-one")).toMatchObject({ error: "malformed" });
  });

  it("gives each attempt a fresh t over the same bytes", () => {
    const body = Buffer.from('{"id":"task_x"}');
    const a = signatureHeader("s3cret-key", body, 100);
    const b = signatureHeader("s3cret-key", body, 160);
    expect(a).not.toBe(b);
    expect(verifySignature(b, body, "s3cret-key", { nowS: 160 }).ok).toBe(true);
  });
});
