/** Content-log redaction: the built-ins (keys, Luhn-valid card numbers, emails), an organisation's patterns, and the patterns refused when saved. */
import { describe, expect, it } from "vitest";
import { patternProblem, redactDeep, redactor } from "./redact";

const all = redactor({ builtins: ["api_keys", "card_numbers", "emails"], redact: ["ACME-\\d{4}"] });

describe("content log redaction", () => {
  it.each([
    ["my key is sk-proj-abcdefghijklmnopqrstuvwx ok", "my key is [REDACTED:api_key] ok"],
    ["anthropic sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAA", "anthropic [REDACTED:api_key]"],
    ["aws AKIAIOSFODNN7EXAMPLE.", "aws [REDACTED:api_key]."],
    ["Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", "Authorization: [REDACTED:api_key]"],
    ["card 4242 4242 4242 4242 exp 12/30", "card [REDACTED:card_number] exp 12/30"],
    ["card 4242-4242-4242-4242", "card [REDACTED:card_number]"],
    ["order 1234567890123 is not a card", "order 1234567890123 is not a card"],
    ["mail jane.doe+x@mail.example.co.uk now", "mail [REDACTED:email] now"],
    ["ticket ACME-1234 closed", "ticket [REDACTED] closed"],
  ])("%s", (input, out) => {
    expect(all(input)).toBe(out);
  });

  it("only the built-ins the organisation keeps on", () => {
    const none = redactor({ builtins: [], redact: [] });
    expect(none("jane@example.com 4242424242424242")).toBe("jane@example.com 4242424242424242");
    expect(redactor({ builtins: ["emails"], redact: [] })("jane@example.com 4242424242424242")).toBe("[REDACTED:email] 4242424242424242");
  });

  it("every string of a record, at any depth; structural keys kept", () => {
    const r = redactDeep({ role: "user", parts: [{ type: "text", text: "jane@example.com" }, { type: "tool_call", arguments: '{"card":"4242424242424242"}' }] }, all);
    expect(r).toEqual({ role: "user", parts: [{ type: "text", text: "[REDACTED:email]" }, { type: "tool_call", arguments: '{"card":"[REDACTED:card_number]"}' }] });
  });

  it("refuses patterns that do not compile, match nothing at all, or are too long", () => {
    expect(patternProblem("(")).toMatch(/not a valid regular expression/);
    expect(patternProblem("a*")).toMatch(/empty string/);
    expect(patternProblem("x".repeat(201))).toMatch(/1 to 200/);
    expect(patternProblem("secret-\\w+")).toBeNull();
  });
});
