/** The config file's `guardrails`: what it accepts, and the mistakes it refuses with the field named. */
import { describe, expect, it } from "vitest";
import { demoCatalog } from "../../config/demo-catalog";
import { configSchema } from "../../config/schema";

const issues = (guardrails: unknown[]) => {
  const r = configSchema.safeParse({ ...demoCatalog, guardrails });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("guardrails in the config file", () => {
  it("accepts each type with its fields", () => {
    expect(
      issues([
        { id: "re", stage: "pre_request", type: "regex", pattern: "\\bsecret\\b", ignoreCase: true, action: "block", models: ["demo-chat"] },
        { id: "pii", stage: "post_response", type: "pii", stream: "holdback", holdback: 64, organisations: ["acc_1"] },
        { id: "hook", stage: "post_response", type: "webhook", url: "https://guard.example/check", secret: "whsec_0123456789abcdef", timeoutMs: 1500, failPolicy: "open", stream: "reject" },
      ]),
    ).toEqual([]);
  });

  it("refuses a bad pattern, a duplicate id, a stream policy before the request, a holdback without its size, a short secret", () => {
    expect(issues([{ id: "a", stage: "pre_request", type: "regex", pattern: "(", action: "block" }])).toEqual(["guardrails.0.pattern: is not a valid regular expression"]);
    expect(issues([{ id: "a", stage: "pre_request", type: "pii" }, { id: "a", stage: "pre_request", type: "pii" }])).toEqual(['guardrails.1.id: duplicate guardrail id "a"']);
    expect(issues([{ id: "a", stage: "pre_request", type: "pii", stream: "buffer" }])).toEqual(["guardrails.0.stream: only post_response guardrails have a stream policy"]);
    expect(issues([{ id: "a", stage: "post_response", type: "pii", stream: "holdback" }])).toEqual(['guardrails.0.holdback: give holdback (characters) exactly with stream "holdback"']);
    expect(issues([{ id: "a", stage: "post_response", type: "webhook", url: "https://x.example", secret: "short" }])[0]).toMatch(/^guardrails\.0\.secret/);
  });
});
