import { describe, expect, it } from "vitest";
import { base64DataUrl, documentFromData, imageFromUrl } from "./canonical";

describe("data URLs", () => {
  it("reads what /^data:([^;,]+);base64,(.*)$/s reads, and nothing else", () => {
    const pattern = /^data:([^;,]+);base64,(.*)$/s;
    const cases = [
      "data:image/png;base64,iVBORw0KGgo=",
      "data:image/png;base64,",
      "data:image/png;base64,a\nb",
      "data:image/svg+xml;base64,PHN2Zz4=",
      "data:;base64,AAAA",
      "data:image/png,AAAA",
      "data:image/png;charset=utf-8;base64,AAAA",
      "data:image/png;base64",
      "data:image/png",
      "data:",
      "DATA:image/png;base64,AAAA",
      " data:image/png;base64,AAAA",
      "https://example.com/cat.png",
      "",
    ];
    for (const s of cases) {
      const m = pattern.exec(s);
      expect(base64DataUrl(s), JSON.stringify(s)).toEqual(m ? { mediaType: m[1], data: m[2] } : null);
    }
  });

  it("makes image and document sources", () => {
    expect(imageFromUrl("data:image/jpeg;base64,/9j/")).toEqual({ kind: "base64", mediaType: "image/jpeg", data: "/9j/" });
    expect(imageFromUrl("https://example.com/a.png")).toEqual({ kind: "url", url: "https://example.com/a.png" });
    expect(documentFromData("JVBERi0=")).toEqual({ kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" });
    expect(documentFromData(`data:text/plain;base64,${Buffer.from("hello").toString("base64")}`)).toEqual({ kind: "text", text: "hello" });
  });
});
