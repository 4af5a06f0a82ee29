import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { parseImageEditRequest } from "./image-edit-request";

const png = (w: number, h: number) => new Uint8Array(PNG.sync.write(new PNG({ width: w, height: h })));

async function multipart(fill: (f: FormData) => void) {
  const form = new FormData();
  fill(form);
  const req = new Request("http://x/", { method: "POST", body: form });
  return { body: Buffer.from(await req.arrayBuffer()), type: req.headers.get("content-type")! };
}

describe("parseImageEditRequest", () => {
  it("reads the images, the mask and the fields", async () => {
    const { body, type } = await multipart((f) => {
      f.set("model", "m");
      f.set("prompt", "p");
      f.set("n", "1");
      f.set("input_fidelity", "high");
      f.append("image[]", new Blob([png(8, 8)], { type: "image/png" }), "a.png");
      f.append("image[]", new Blob([png(4, 4)], { type: "image/png" }), "b.png");
      f.set("mask", new Blob([png(8, 8)], { type: "image/png" }), "m.png");
    });
    const r = await parseImageEditRequest(body, type);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toMatchObject({ model: "m", prompt: "p", edit: { inputFidelity: "high" } });
    expect(r.value.edit!.images.map((i) => [i.filename, i.width])).toEqual([
      ["a.png", 8],
      ["b.png", 4],
    ]);
    expect(r.value.edit!.mask?.format).toBe("png");
  });

  it.each([
    ["no image", (f: FormData) => f.set("prompt", "p"), "image"],
    ["an unknown field", (f: FormData) => (f.set("prompt", "p"), f.set("image", new Blob([png(2, 2)]), "a.png"), f.set("colour", "red")), "colour"],
    ["n of 2", (f: FormData) => (f.set("prompt", "p"), f.set("n", "2"), f.set("image", new Blob([png(2, 2)]), "a.png")), "n"],
    ["a JPEG-less garbage image", (f: FormData) => (f.set("prompt", "p"), f.set("image", new Blob(["nope"]), "a.png")), "image"],
    ["a mask of another size", (f: FormData) => (f.set("prompt", "p"), f.set("image", new Blob([png(4, 4)]), "a.png"), f.set("mask", new Blob([png(2, 2)]), "m.png")), "mask"],
    ["a bad input_fidelity", (f: FormData) => (f.set("prompt", "p"), f.set("image", new Blob([png(2, 2)]), "a.png"), f.set("input_fidelity", "max")), "input_fidelity"],
  ])("refuses %s naming the field", async (_what, fill, param) => {
    const { body, type } = await multipart((f) => (f.set("model", "m"), fill(f)));
    const r = await parseImageEditRequest(body, type);
    expect(r).toMatchObject({ ok: false, error: { status: 400, param } });
  });

  it("reads the JSON form: data: URLs decoded now, http(s) URLs kept for after admission", async () => {
    const data = `data:image/png;base64,${Buffer.from(png(5, 7)).toString("base64")}`;
    const json = (b: unknown) => parseImageEditRequest(Buffer.from(JSON.stringify(b)), "application/json");
    const r = await json({ model: "m", prompt: "p", images: [{ image_url: data }, { image_url: "https://example.com/a.png" }], mask: { image_url: data } });
    expect(r.ok && r.value.edit!.images.map((f) => [f.width, f.remote?.param])).toEqual([
      [5, undefined],
      [0, "images[1].image_url"],
    ]);
    expect(r.ok && r.value.edit!.mask!.height).toBe(7);
    expect(await json({ model: "m", prompt: "p" })).toMatchObject({ ok: false, error: { status: 400, param: "images" } });
    expect(await parseImageEditRequest(Buffer.from("{}"), "text/plain")).toMatchObject({ ok: false, error: { status: 400, param: "image" } });
  });
});
