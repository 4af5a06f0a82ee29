import { describe, expect, it } from "vitest";
import { errorOf, friendlyError } from "./friendly-error";

describe("friendlyError", () => {
  it("402 links to Billing", () => {
    const e = friendlyError(402, "insufficient_user_quota", "Insufficient balance.");
    expect(e.action).toEqual({ href: "/billing", label: "Go to Billing" });
  });
  it("names the next step for the common codes", () => {
    expect(friendlyError(404, "model_not_found", "x").detail).toMatch(/Pick another model/);
    expect(friendlyError(400, "invalid_request", "`size` must be one of a, b.").detail).toBe("size must be one of a, b. Change the settings and send again.");
    expect(friendlyError(502, "upstream_error", "x").title).toBe("The model provider failed");
  });
  it("reads the OpenAI, Anthropic and console envelopes", () => {
    expect(errorOf(402, { error: { message: "m", type: "insufficient_quota", code: "insufficient_user_quota" } })).toEqual({ code: "insufficient_user_quota", message: "m" });
    expect(errorOf(400, { type: "error", error: { message: "m", type: "invalid_request", code: "invalid_request" } }).code).toBe("invalid_request");
    expect(errorOf(401, { error: { code: "unauthenticated", message: "Sign in", requestId: "r" } }).code).toBe("unauthenticated");
    expect(errorOf(500, "nope")).toEqual({ code: "http_500", message: "The request failed (HTTP 500)." });
  });
});
