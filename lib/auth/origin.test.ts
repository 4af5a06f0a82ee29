import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env";
import { checkOrigin } from "./origin";

beforeEach(() => {
  process.env.PUBLIC_BASE_URL = "https://gw.example.com";
  resetEnvCache();
});
afterEach(() => {
  delete process.env.PUBLIC_BASE_URL;
  resetEnvCache();
});

const h = (o: Record<string, string>) => new Headers(o);

describe("checkOrigin", () => {
  it.each([
    ["POST", { origin: "https://gw.example.com" }, true],
    ["DELETE", { origin: "https://gw.example.com", host: "internal:3000" }, true],
    ["POST", { origin: "http://localhost:3000", host: "localhost:3000" }, true],
    ["PATCH", { origin: "https://evil.example", host: "gw.example.com" }, false],
    ["POST", { origin: "https://gw.example.com.evil.example" }, false],
    ["POST", { origin: "http://gw.example.com" }, false],
    ["POST", { origin: "null" }, false],
    ["POST", { origin: "NULL" }, false],
    ["POST", {}, false],
    ["POST", { "sec-fetch-site": "same-origin" }, true],
    ["POST", { "sec-fetch-site": "cross-site" }, false],
    ["POST", { origin: "not a url" }, false],
    ["GET", { origin: "https://evil.example" }, true],
  ] as const)("%s %j → %s", (method, headers, ok) => {
    expect(checkOrigin(method, h(headers as Record<string, string>)).ok).toBe(ok);
  });
});
