import { describe, expect, it } from "vitest";
import { MAX_EMBEDDING_INPUTS, parseEmbeddingRequest } from "./embedding-request";

const ok = (body: unknown) => {
  const r = parseEmbeddingRequest(body);
  if (!r.ok) throw new Error(`expected ok, got ${r.error.message}`);
  return r.value;
};
const fail = (body: unknown) => {
  const r = parseEmbeddingRequest(body);
  if (r.ok) throw new Error("expected a 400");
  expect(r.error.status).toBe(400);
  expect(r.error.code).toBe("invalid_request");
  return r.error;
};

describe("parseEmbeddingRequest", () => {
  it("takes a string, an array of strings, and token arrays", () => {
    expect(ok({ model: "m", input: "hi" }).input).toEqual({ kind: "text", texts: ["hi"] });
    expect(ok({ model: "m", input: ["a", "b"] }).input).toEqual({ kind: "text", texts: ["a", "b"] });
    expect(ok({ model: "m", input: [1, 2, 3] }).input).toEqual({ kind: "tokens", tokens: [[1, 2, 3]] });
    expect(ok({ model: "m", input: [[1], [2, 3]] }).input).toEqual({ kind: "tokens", tokens: [[1], [2, 3]] });
  });

  it("defaults encoding_format to float and keeps base64", () => {
    expect(ok({ model: "m", input: "x" }).encodingFormat).toBe("float");
    expect(ok({ model: "m", input: "x", encoding_format: "base64" }).encodingFormat).toBe("base64");
    expect(ok({ model: "m", input: "x", encoding_format: null }).encodingFormat).toBe("float");
  });

  it.each([
    [{ input: "x" }, "model", /model/],
    [{ model: 3, input: "x" }, "model", /model/],
    [{ model: "m" }, "input", /input/],
    [{ model: "m", input: "" }, "input", /empty string/],
    [{ model: "m", input: [] }, "input", /empty array/],
    [{ model: "m", input: ["a", ""] }, "input", /input\[1\].*empty string/],
    [{ model: "m", input: ["a", 2] }, "input", /input\[1\]/],
    [{ model: "m", input: [[1], []] }, "input", /input\[1\].*empty token/],
    [{ model: "m", input: [1, -2] }, "input", /input\[1\]/],
    [{ model: "m", input: [1.5] }, "input", /input\[0\]/],
    [{ model: "m", input: { text: "x" } }, "input", /input/],
    [{ model: "m", input: "x", encoding_format: "hex" }, "encoding_format", /encoding_format/],
    [{ model: "m", input: "x", dimensions: 0 }, "dimensions", /dimensions/],
    [{ model: "m", input: "x", dimensions: 1.5 }, "dimensions", /dimensions/],
    [{ model: "m", input: "x", user: 5 }, "user", /user/],
  ])("rejects %j naming %s", (body, param, message) => {
    const err = fail(body);
    expect(err.param).toBe(param);
    expect(err.message).toMatch(message);
  });

  it("rejects too many inputs, naming the limit", () => {
    const err = fail({ model: "m", input: Array.from({ length: MAX_EMBEDDING_INPUTS + 1 }, () => "a") });
    expect(err.param).toBe("input");
    expect(err.message).toContain(String(MAX_EMBEDDING_INPUTS));
    expect(ok({ model: "m", input: Array.from({ length: MAX_EMBEDDING_INPUTS }, () => "a") }).input).toMatchObject({ kind: "text" });
  });

  it("rejects a body that is not an object", () => {
    fail(null);
    fail([1]);
    fail("text");
  });
});
