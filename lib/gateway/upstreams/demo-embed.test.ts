import { describe, expect, it } from "vitest";
import { DEMO_EMBEDDING_DIMENSIONS, demoEmbed, demoEmbeddingVector } from "./demo-embed";

const cos = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s; // both are unit vectors
};

describe("demo embeddings", () => {
  it("is deterministic and unit length", () => {
    const a = demoEmbeddingVector("The quick brown fox");
    expect(a).toEqual(demoEmbeddingVector("The quick brown fox"));
    expect(a.length).toBe(DEMO_EMBEDDING_DIMENSIONS);
    expect(cos(a, a)).toBeCloseTo(1, 5);
  });

  it("gives similar texts more similar vectors than unrelated ones", () => {
    const base = demoEmbeddingVector("The cat sat on the mat");
    const near = demoEmbeddingVector("A cat sat on a mat");
    const far = demoEmbeddingVector("Quarterly revenue grew by twelve percent");
    expect(cos(base, near)).toBeGreaterThan(0.5);
    expect(cos(base, far)).toBeLessThan(0.3);
    expect(cos(base, near)).toBeGreaterThan(cos(base, far) + 0.3);
  });

  it("honours dimensions and gives one vector per input, token arrays too", () => {
    const r = demoEmbed({ model: "m", input: { kind: "text", texts: ["a", "b", "!!"] }, encodingFormat: "float", dimensions: 8 });
    if (!r.ok) throw new Error("demo failed");
    expect(r.value.vectors.map((v) => v.length)).toEqual([8, 8, 8]);
    expect(r.value.promptTokens).toBeNull();
    const t = demoEmbed({ model: "m", input: { kind: "tokens", tokens: [[1, 2, 3], [1, 2, 4]] }, encodingFormat: "float" });
    if (!t.ok) throw new Error("demo failed");
    expect(cos(t.value.vectors[0]!, t.value.vectors[1]!)).toBeGreaterThan(0.3);
  });
});
