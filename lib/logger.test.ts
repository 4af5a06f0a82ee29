import { describe, expect, it } from "vitest";
import { safeError, sanitizeUrl } from "./logger";

describe("log scrubbing", () => {
  it("drops a failed query's parameters from the error, its message, stack and cause", () => {
    const err = Object.assign(new Error('Failed query: insert into "tasks" ("params") values ($1)\nparams: {"prompt":"SECRET PROMPT"}'), {
      params: ["SECRET PROMPT"],
      cause: Object.assign(new Error("x\nparams: SECRET PROMPT"), { params: ["SECRET PROMPT"] }),
    });
    const out = JSON.stringify(safeError(err));
    expect(out).not.toContain("SECRET PROMPT");
    expect(out).toContain("Failed query: insert into");
  });

  it("redacts ?key= and userinfo in URLs", () => {
    expect(sanitizeUrl("/v1beta/models/x:generateContent?key=sk-abc&alt=sse")).toBe("/v1beta/models/x:generateContent?key=%5Bredacted%5D&alt=sse");
    expect(sanitizeUrl("https://user:pw@example.com/hook?token=t")).not.toMatch(/pw|token=t/);
  });
});
