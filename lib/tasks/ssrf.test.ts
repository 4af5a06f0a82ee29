import { describe, expect, it } from "vitest";
import { HOSTILE_WEBHOOK_URLS, hostileResolver as resolver } from "./__fixtures__/hostile-webhook-urls";
import { blockedAddressReason, checkWebhookUrl, checkWebhookUrlShape, makePolicy } from "./ssrf";

const policy = makePolicy({
  publicBaseUrl: "https://gateway.example.com",
  allowHosts: ["127.0.0.1:9999", "[::1]:9998"],
  resolve: resolver,
});

describe("webhook URL policy", () => {
  it("has a table of at least 40 hostile URLs", () => {
    expect(HOSTILE_WEBHOOK_URLS.length).toBeGreaterThanOrEqual(40);
  });

  it.each(HOSTILE_WEBHOOK_URLS)("refuses %s", async (url) => {
    const v = await checkWebhookUrl(url, policy);
    expect(v.ok).toBe(false);
  });

  it.each([
    "https://example.com/hook",
    "http://example.com:8080/hook?x=1",
    "https://hooks.example.org/",
    "https://1.1.1.1/",
    "https://8.8.8.8/",
    "https://[2606:4700:4700::1111]/",
    "https://[::ffff:8.8.8.8]/",
  ])("accepts %s", async (url) => {
    const v = await checkWebhookUrl(url, policy);
    expect(v).toMatchObject({ ok: true, value: { allowListed: false } });
  });

  it("exempts exact allow-listed host:port pairs only", async () => {
    expect(await checkWebhookUrl("http://127.0.0.1:9999/hook", policy)).toMatchObject({ ok: true, value: { allowListed: true } });
    expect(await checkWebhookUrl("http://[::1]:9998/", policy)).toMatchObject({ ok: true, value: { allowListed: true } });
    expect((await checkWebhookUrl("http://127.0.0.1:9998/", policy)).ok).toBe(false);
    expect((await checkWebhookUrl("http://localhost:9999/", policy)).ok).toBe(false);
    // Still no credentials or other schemes on an allow-listed host.
    expect((await checkWebhookUrl("http://a:b@127.0.0.1:9999/", policy)).ok).toBe(false);
  });

  it("refuses the service's own host:port even when allow-listed", () => {
    const p = makePolicy({ publicBaseUrl: "http://127.0.0.1:4000", allowHosts: ["127.0.0.1:4000", "127.0.0.1:4001"], resolve: resolver });
    expect(checkWebhookUrlShape("http://127.0.0.1:4000/x", p).ok).toBe(false);
    expect(checkWebhookUrlShape("http://127.0.0.1:4001/x", p).ok).toBe(true);
  });

  it("names the reason", async () => {
    expect(await checkWebhookUrl("http://[::ffff:127.0.0.1]/", policy)).toEqual({
      ok: false,
      error: "points at a non-public address (loopback address)",
    });
    expect(await checkWebhookUrl("ftp://example.com/", policy)).toEqual({ ok: false, error: "must use http or https" });
  });
});

describe("blockedAddressReason", () => {
  it.each([
    ["127.0.0.1", "loopback address"],
    ["::1", "loopback address"],
    ["::ffff:7f00:1", "loopback address"],
    ["100.64.0.1", "carrierGradeNat address"],
    ["169.254.169.254", "linkLocal address"],
    ["::7f00:1", "IPv4-compatible IPv6 address"],
    ["2001::1", "teredo address"],
  ])("%s → %s", (ip, why) => {
    expect(blockedAddressReason(ip)).toBe(why);
  });
  it("passes public unicast", () => {
    expect(blockedAddressReason("93.184.216.34")).toBeNull();
    expect(blockedAddressReason("[2606:4700:4700::1111]")).toBeNull();
  });
});
