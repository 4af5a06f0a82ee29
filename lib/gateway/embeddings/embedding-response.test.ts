import { describe, expect, it } from "vitest";
import { embeddingList } from "./embedding-response";

describe("embeddingList", () => {
  it("renders floats with the requested model id and indexes in order", () => {
    const list = embeddingList("my-emb", [[1, -2], Float32Array.from([0.5, 0.25])], "float", 7);
    expect(list).toEqual({
      object: "list",
      data: [
        { object: "embedding", index: 0, embedding: [1, -2] },
        { object: "embedding", index: 1, embedding: [0.5, 0.25] },
      ],
      model: "my-emb",
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
  });

  it("renders base64 as little-endian float32", () => {
    const list = embeddingList("m", [[1, -2, 0.5]], "base64", 1);
    expect(list.data[0]!.embedding).toBe("AACAPwAAAMAAAAA/");
  });
});
