/**
 * Documents across protocols (docs/conversion-policy.md, "documents"): Messages `document` ⇄ chat
 * `file` ⇄ Responses `input_file` ⇄ Gemini `inlineData application/pdf`, through handleText and
 * the fake upstreams, which enforce the vendors' own 400 rules on what they receive.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MEDIA_URLS_PER_REQUEST, setMediaFetcher } from "../upstreams/inline-media";
import { useFourTextHost, type Up } from "../../../tests/fakes/four-text-upstreams";

const four = useFourTextHost((route) => ({
  // Two Gemini entries: a download is made once for both.
  "m-gemini-two": [{ ...route("gemini"), rowId: "row-g1", upstream: { ...route("gemini").upstream, apiKey: "wrong" } }, { ...route("gemini"), rowId: "row-g2" }],
}));

/** A one-page PDF, as base64. */
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R >> endobj\n%%EOF\n").toString("base64");
const PDF_URL = `data:application/pdf;base64,${PDF}`;

const post = (path: string, body: unknown) => fetch(`${four.host.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const gc = (up: Up) => `/v1beta/models/m-${up}:generateContent`;
const lastBody = (up: Up) => four.fakes[up].generationRequests().at(-1)!.body;
const reset = () => Object.values(four.fakes).forEach((f) => f.reset());
async function ok(r: Response) {
  const text = await r.text();
  expect(r.status, text).toBe(200);
}

/** The document each upstream must receive for the PDF above named report.pdf. */
const RECEIVED = {
  openai: (b: any) => expect(b.messages.at(-1).content).toContainEqual({ type: "file", file: { filename: "report.pdf", file_data: PDF_URL } }),
  responses: (b: any) => expect(b.input.at(-1).content).toContainEqual({ type: "input_file", filename: "report.pdf", file_data: PDF_URL }),
  anthropic: (b: any) => expect(b.messages.at(-1).content).toContainEqual({ type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "report.pdf" }),
  gemini: (b: any) => expect(b.contents.at(-1).parts).toContainEqual({ inlineData: { mimeType: "application/pdf", data: PDF } }),
};

describe("a PDF reaches every upstream in its own shape", () => {
  const clients = {
    messages: (model: string) =>
      post("/v1/messages", { model, max_tokens: 50, messages: [{ role: "user", content: [{ type: "document", title: "report.pdf", source: { type: "base64", media_type: "application/pdf", data: PDF } }, { type: "text", text: "Summarise" }] }] }),
    chat: (model: string) =>
      post("/v1/chat/completions", { model, messages: [{ role: "user", content: [{ type: "file", file: { filename: "report.pdf", file_data: PDF_URL } }, { type: "text", text: "Summarise" }] }] }),
    responses: (model: string) =>
      post("/v1/responses", { model, input: [{ role: "user", content: [{ type: "input_file", filename: "report.pdf", file_data: PDF_URL }, { type: "input_text", text: "Summarise" }] }] }),
    gemini: (model: string) => post(`/v1beta/models/${model}:generateContent`, { contents: [{ role: "user", parts: [{ inlineData: { mimeType: "application/pdf", data: PDF } }, { text: "Summarise" }] }] }),
  };
  const targets: Record<keyof typeof clients, Up[]> = {
    messages: ["openai", "responses", "gemini"],
    chat: ["anthropic", "responses", "gemini"],
    responses: ["openai", "anthropic", "gemini"],
    gemini: ["openai", "anthropic", "responses"],
  };
  for (const [client, ups] of Object.entries(targets) as Array<[keyof typeof clients, Up[]]>)
    it.each(ups)(`${client} → %s`, async (up) => {
      reset();
      await ok(await clients[client](`m-${up}`));
      const body = lastBody(up);
      // Gemini has no file name to carry: the other side gets its default one.
      if (client === "gemini" && up !== "anthropic") {
        const sent = JSON.stringify(body);
        expect(sent).toContain(PDF_URL);
        expect(sent).toContain('"document.pdf"');
      } else if (client === "gemini") expect(body.messages[0].content[0]).toEqual({ type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF } });
      else RECEIVED[up](body);
      expect(four.fakes[up].generationRequests().at(-1)!.refused).toBeUndefined();
    });
});

describe("text documents, URLs and what only the issuing vendor can read", () => {
  it("Anthropic's text document becomes a text part for OpenAI; chat's text/plain file becomes Anthropic's text source", async () => {
    reset();
    await ok(await post("/v1/messages", { model: "m-openai", max_tokens: 50, messages: [{ role: "user", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "The notes." } }, { type: "text", text: "Read" }] }] }));
    expect(lastBody("openai").messages.at(-1).content).toBe("The notes.Read");
    const txt = `data:text/plain;base64,${Buffer.from("The notes.").toString("base64")}`;
    await ok(await post("/v1/chat/completions", { model: "m-anthropic", messages: [{ role: "user", content: [{ type: "file", file: { filename: "notes.txt", file_data: txt } }] }] }));
    expect(lastBody("anthropic").messages[0].content[0]).toEqual({ type: "document", source: { type: "text", media_type: "text/plain", data: "The notes." }, title: "notes.txt" });
  });

  it("a PDF URL goes to Anthropic as a url source and to Responses as file_url", async () => {
    reset();
    const url = "https://example.com/report.pdf";
    await ok(await post("/v1/responses", { model: "m-anthropic", input: [{ role: "user", content: [{ type: "input_file", file_url: url }] }] }));
    expect(lastBody("anthropic").messages[0].content[0]).toEqual({ type: "document", source: { type: "url", url } });
    await ok(await post("/v1/messages", { model: "m-responses", max_tokens: 50, messages: [{ role: "user", content: [{ type: "document", source: { type: "url", url } }] }] }));
    expect(lastBody("responses").input[0].content[0]).toEqual({ type: "input_file", file_url: url });
  });

  it("without the files step (decision 0074: the gateway inlines its own files first), a file id is a 400 naming it on a converted route and passes through as given", async () => {
    reset();
    const chat = { messages: [{ role: "user", content: [{ type: "text", text: "Read" }, { type: "file", file: { file_id: "file-abc" } }] }] };
    const bad = await post("/v1/chat/completions", { model: "m-anthropic", ...chat });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toMatch(/^messages\[0\]\.content\[1\]\.file\.file_id: /);
    await ok(await post("/v1/chat/completions", { model: "m-openai", ...chat }));
    expect(lastBody("openai").messages[0].content[1]).toEqual({ type: "file", file: { file_id: "file-abc" } });
    const rs = await post("/v1/responses", { model: "m-gemini", input: [{ role: "user", content: [{ type: "input_file", file_id: "file-abc" }] }] });
    expect(rs.status).toBe(400);
    expect(((await rs.json()) as any).error.message).toMatch(/^input\[0\]\.content\[0\]\.file_id: /);
    const am = await post("/v1/messages", { model: "m-gemini", max_tokens: 50, messages: [{ role: "user", content: [{ type: "document", source: { type: "file", file_id: "file_011" } }] }] });
    expect(am.status).toBe(400);
    expect(four.fakes.gemini.generationRequests()).toHaveLength(0);
  });

  it("a document type Claude cannot read is a 400 naming the part, before any upstream call", async () => {
    reset();
    const docx = "data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,UEsDBA==";
    const r = await post("/v1/chat/completions", { model: "m-anthropic", messages: [{ role: "user", content: [{ type: "text", text: "Read" }, { type: "file", file: { filename: "a.docx", file_data: docx } }] }] });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.message).toMatch(/^messages\[0\]\.content\[1\]: documents of type application\/vnd\.openxml.* not supported/);
    expect(four.fakes.anthropic.generationRequests()).toHaveLength(0);
    const toGemini = await post("/v1/responses", { model: "m-gemini", input: [{ role: "user", content: [{ type: "input_file", filename: "a.docx", file_data: docx }] }] });
    expect(toGemini.status).toBe(400);
    expect(((await toGemini.json()) as any).error.message).toMatch(/^input\[0\]\.content\[0\]: documents of type/);
    expect(four.fakes.gemini.generationRequests()).toHaveLength(0);
    // The same file goes to an OpenAI Responses upstream, which reads it.
    await ok(await post("/v1/chat/completions", { model: "m-responses", messages: [{ role: "user", content: [{ type: "file", file: { filename: "a.docx", file_data: docx } }] }] }));
    expect(lastBody("responses").input[0].content[0]).toEqual({ type: "input_file", filename: "a.docx", file_data: docx });
  });

  it("a PDF inside a tool result (Claude Code reading a file) passes through to Anthropic, and follows the tool messages on chat", async () => {
    reset();
    const history = [
      { role: "user", content: "Read report.pdf" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "report.pdf" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "PDF file read" }, { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF } }] }] },
    ];
    const tools = [{ name: "Read", input_schema: { type: "object", properties: { file_path: { type: "string" } } } }];
    await ok(await post("/v1/messages", { model: "m-anthropic", max_tokens: 50, tools, messages: history }));
    expect(lastBody("anthropic").messages[2]).toEqual(history[2]);
    await ok(await post("/v1/messages", { model: "m-openai", max_tokens: 50, tools, messages: history }));
    const sent = lastBody("openai").messages;
    expect(sent.at(-2)).toMatchObject({ role: "tool", tool_call_id: "toolu_1", content: "PDF file read\n\n[1 attachment of this result follows in the next user message]" });
    expect(sent.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Attachments of the result of tool call toolu_1:" },
        { type: "file", file: { filename: "document.pdf", file_data: PDF_URL } },
      ],
    });
  });

  it("Gemini audio inline data is still a 400 naming its mimeType", async () => {
    const r = await post(gc("openai"), { contents: [{ parts: [{ inlineData: { mimeType: "audio/wav", data: "AA" } }] }] });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.message).toMatch(/^contents\[0\]\.parts\[0\]\.inlineData\.mimeType: /);
  });
});

/** A loopback file server standing in for the web: what the gateway downloads for Gemini. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const files: Record<string, { type: string; body: Buffer; status?: number }> = {
  "/cat.png": { type: "image/png", body: PNG },
  "/report.pdf": { type: "application/pdf", body: Buffer.from(PDF, "base64") },
  "/notes.txt": { type: "text/plain; charset=utf-8", body: Buffer.from("The notes.") },
  "/page.html": { type: "text/html", body: Buffer.from("<html></html>") },
  "/big.png": { type: "image/png", body: Buffer.alloc(4096) },
  "/large.png": { type: "image/png", body: Buffer.alloc(12 * 1024 * 1024) },
  "/moved.png": { type: "image/png", body: Buffer.alloc(0), status: 302 },
};
let web: Server;
let webUrl = "";
const hits: string[] = [];

describe("URLs the target cannot take are downloaded (SSRF-guarded, capped, typed) and inlined", () => {
  beforeAll(async () => {
    web = createServer((req, res) => {
      hits.push(req.url ?? "");
      const f = files[(req.url ?? "").split("?")[0]!];
      if (!f) return void res.writeHead(404).end();
      res.writeHead(f.status ?? 200, { "content-type": f.type, ...(f.status === 302 ? { location: "/cat.png" } : {}) });
      res.end(f.body);
    });
    await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
    const port = (web.address() as AddressInfo).port;
    webUrl = `http://127.0.0.1:${port}`;
    setMediaFetcher({ allowHosts: [`127.0.0.1:${port}`], maxBytes: 2048 });
  });
  afterAll(async () => {
    setMediaFetcher(undefined);
    await new Promise((r) => web?.close(r));
  });

  it("an image URL from chat reaches Gemini as inlineData, downloaded once for two entries", async () => {
    reset();
    hits.length = 0;
    const r = await post("/v1/chat/completions", { model: "m-gemini-two", messages: [{ role: "user", content: [{ type: "text", text: "What is it?" }, { type: "image_url", image_url: { url: `${webUrl}/cat.png` } }] }] });
    await ok(r);
    // The first entry is refused (wrong key), the second serves: both got the same bytes, fetched once.
    const sent = four.fakes.gemini.generationRequests();
    expect(sent).toHaveLength(2);
    for (const q of sent) expect(q.body.contents[0].parts[1]).toEqual({ inlineData: { mimeType: "image/png", data: PNG.toString("base64") } });
    expect(hits).toEqual(["/cat.png"]);
  });

  it("a PDF URL from Messages reaches Gemini and OpenAI chat inline; a text URL becomes text", async () => {
    reset();
    await ok(await post("/v1/messages", { model: "m-gemini", max_tokens: 50, messages: [{ role: "user", content: [{ type: "document", source: { type: "url", url: `${webUrl}/report.pdf` } }] }] }));
    expect(lastBody("gemini").contents[0].parts[0]).toEqual({ inlineData: { mimeType: "application/pdf", data: PDF } });
    await ok(await post("/v1/messages", { model: "m-openai", max_tokens: 50, messages: [{ role: "user", content: [{ type: "document", title: "r.pdf", source: { type: "url", url: `${webUrl}/report.pdf` } }] }] }));
    expect(lastBody("openai").messages[0].content).toEqual([{ type: "file", file: { filename: "r.pdf", file_data: PDF_URL } }]);
    await ok(await post("/v1/responses", { model: "m-gemini", input: [{ role: "user", content: [{ type: "input_file", file_url: `${webUrl}/notes.txt` }] }] }));
    expect(lastBody("gemini").contents[0].parts[0]).toEqual({ text: "The notes." });
  });

  it.each([
    ["/big.png", /larger than .* MB \(MEDIA_URL_MAX_MB\)/],
    ["/page.html", /content type "text\/html", not an image/],
    ["/missing.png", /answered 404/],
    ["/moved.png", /answered 302 \(redirects are not followed\)/],
  ])("%s → 400 naming the part, no upstream call", async (file, why) => {
    reset();
    const r = await post("/v1/chat/completions", { model: "m-gemini", messages: [{ role: "user", content: [{ type: "text", text: "x" }, { type: "image_url", image_url: { url: `${webUrl}${file}` } }] }] });
    expect(r.status).toBe(400);
    const msg = ((await r.json()) as any).error.message as string;
    expect(msg).toMatch(/^messages\[0\]\.content\[1\]: /);
    expect(msg).toMatch(why);
    expect(four.fakes.gemini.generationRequests()).toHaveLength(0);
  });

  it("a private address is blocked by the SSRF guard (nothing is fetched); an unreachable one is a 400 too", async () => {
    setMediaFetcher({ allowHosts: [], maxBytes: 2048 });
    try {
      reset();
      hits.length = 0;
      const r = await post("/v1/messages", { model: "m-gemini", max_tokens: 50, messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: `${webUrl}/cat.png` } }] }] });
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error.message).toMatch(/^messages\[0\]\.content\[0\]: the URL points at a non-public address/);
      const meta = await post("/v1/messages", { model: "m-gemini", max_tokens: 50, messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: "http://169.254.169.254/latest/meta-data" } }] }] });
      expect(meta.status).toBe(400);
      expect(hits).toEqual([]);
      expect(four.fakes.gemini.generationRequests()).toHaveLength(0);
    } finally {
      setMediaFetcher({ allowHosts: [webUrl.slice("http://".length)], maxBytes: 2048 });
    }
    const gone = await post("/v1/messages", { model: "m-gemini", max_tokens: 50, messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: "http://127.0.0.1:9/x.png" } }] }] });
    expect(gone.status).toBe(400);
  });

  it("a balance that cannot cover the text hold is a 402 before any download (decision 0036)", async () => {
    reset();
    hits.length = 0;
    const before = four.host.balance.available;
    four.host.balance.available = 10;
    try {
      const r = await post("/v1/chat/completions", { model: "m-gemini", messages: [{ role: "user", content: [{ type: "text", text: "x" }, { type: "image_url", image_url: { url: `${webUrl}/cat.png` } }] }] });
      expect(r.status).toBe(402);
      expect(hits).toEqual([]);
      expect(four.fakes.gemini.generationRequests()).toHaveLength(0);
    } finally {
      four.host.balance.available = before;
    }
    // Funded: the hold came first, then the download; a failed download gives the hold back.
    const holds = four.host.holds.length;
    const r = await post("/v1/chat/completions", { model: "m-gemini", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: `${webUrl}/missing.png` } }] }] });
    expect(r.status).toBe(400);
    expect(four.host.holds.length).toBe(holds + 1);
    expect(four.host.settlements.at(-1)).toMatchObject({ costMicroUsd: 0, log: { status: 400 } });
    expect(four.host.settlements.at(-1)!.hold).not.toBeNull();
    expect(four.host.balance.available).toBe(before);
  });

  it("more URLs than a request may download is a 400 naming the limit, and nothing is fetched", async () => {
    reset();
    hits.length = 0;
    const images = Array.from({ length: MEDIA_URLS_PER_REQUEST + 1 }, (_, i) => ({ type: "image_url", image_url: { url: `${webUrl}/cat.png?${i}` } }));
    const r = await post("/v1/chat/completions", { model: "m-gemini", messages: [{ role: "user", content: images }] });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.message).toMatch(new RegExp(`${MEDIA_URLS_PER_REQUEST + 1} image or document URLs .* at most ${MEDIA_URLS_PER_REQUEST} per request`));
    expect(hits).toEqual([]);
  });

  it("the files of one request together stop at the target's inline limit (Gemini's 20 MB), naming it", async () => {
    setMediaFetcher({ allowHosts: [webUrl.slice("http://".length)], maxBytes: 15 * 1024 * 1024 });
    try {
      reset();
      hits.length = 0;
      const images = ["a", "b"].map((x) => ({ type: "image_url", image_url: { url: `${webUrl}/large.png?${x}` } }));
      const r = await post("/v1/chat/completions", { model: "m-gemini", messages: [{ role: "user", content: images }] });
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error.message).toMatch(/^messages\[0\]\.content\[1\]: the files of this request are larger than Gemini's 20 MB inline request limit allows/);
      expect(four.fakes.gemini.generationRequests()).toHaveLength(0);
    } finally {
      setMediaFetcher({ allowHosts: [webUrl.slice("http://".length)], maxBytes: 2048 });
    }
  });

  it("the same URL to an upstream that takes URLs goes as a URL (no download)", async () => {
    reset();
    hits.length = 0;
    await ok(await post("/v1/chat/completions", { model: "m-anthropic", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: `${webUrl}/cat.png` } }] }] }));
    expect(lastBody("anthropic").messages[0].content[0]).toEqual({ type: "image", source: { type: "url", url: `${webUrl}/cat.png` } });
    expect(hits).toEqual([]);
  });
});
