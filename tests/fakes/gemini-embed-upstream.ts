/**
 * A fake Gemini (Google AI v1beta) embedding upstream on 127.0.0.1 (random port):
 * `POST /v1beta/models/{model}:embedContent` and `:batchEmbedContents`, authenticated with
 * `x-goog-api-key`, answering in the wire shape @google/genai reads. Records every request;
 * can fail with 500 or hang until closed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type GeminiBehavior = "ok" | "fail500" | "hang";

export interface GeminiRecorded {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface FakeGeminiEmbed {
  /** Host only, as the gateway config expects for protocol "gemini". */
  baseUrl: string;
  requests: GeminiRecorded[];
  script: { behavior: GeminiBehavior };
  vectorFor(text: string, dims?: number): number[];
  close(): Promise<void>;
}

export const FAKE_GEMINI_KEY = "fake-gemini-key";

export async function startFakeGeminiEmbed(): Promise<FakeGeminiEmbed> {
  const requests: GeminiRecorded[] = [];
  const sockets = new Set<Socket>();
  const script = { behavior: "ok" as GeminiBehavior };
  const vectorFor = (text: string, dims = 3) => Array.from({ length: dims }, (_, i) => (i === 0 ? text.length : 0.25 * i));

  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push({ path, headers: req.headers, body });
    if (req.headers["x-goog-api-key"] !== FAKE_GEMINI_KEY)
      return send(res, 400, { error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT" } });
    if (script.behavior === "hang") return;
    if (script.behavior === "fail500") return send(res, 500, { error: { code: 500, message: "Internal error", status: "INTERNAL" } });
    const m = /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/.exec(path);
    if (req.method !== "POST" || !m) return send(res, 404, { error: { code: 404, message: "Not found", status: "NOT_FOUND" } });
    const text = (c: any) => (c?.parts ?? []).map((p: any) => p.text ?? "").join("");
    if (m[2] === "embedContent") return send(res, 200, { embedding: { values: vectorFor(text(body.content), body.outputDimensionality) } });
    return send(res, 200, {
      embeddings: (body.requests ?? []).map((r: any) => ({ values: vectorFor(text(r.content), r.outputDimensionality) })),
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script,
    vectorFor,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return null;
  }
}
