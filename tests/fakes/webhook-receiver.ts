/**
 * A webhook receiver on 127.0.0.1:0 for tests: records every request with its raw body bytes,
 * verifies `X-Shim-Signature` with the receiver code from docs/webhooks.md, and answers from a
 * script (status, delay, redirect). With no script it answers 200. Also serves as the
 * "canary": a server that must never receive anything in the hostile-URL tests.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { verifySignature } from "../../lib/tasks/webhook-signature";

export interface ReceivedHook {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  json: unknown;
  receivedAt: number;
  /** null when the receiver has no secret to check with. */
  signatureOk: boolean | null;
}

export interface Answer {
  status: number;
  /** Wait this long before answering (to provoke the sender's timeout). */
  delayMs?: number;
  /** Location header, for 3xx answers. */
  location?: string;
  body?: string;
  /** Send the status and headers, then trickle the body and never finish it. */
  neverEnd?: boolean;
  /** Answer with this many bytes of body (to check the sender reads only a bounded amount). */
  bodyBytes?: number;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** `127.0.0.1:<port>`, the WEBHOOK_ALLOW_HOSTS entry for this receiver. */
  hostPort: string;
  received: ReceivedHook[];
  /** Answers used in order, one per request; the fallback after they run out. */
  setScript(answers: Answer[], fallback?: Answer): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(opts: { secret?: string; script?: Answer[]; fallback?: Answer } = {}): Promise<WebhookReceiver> {
  let script = [...(opts.script ?? [])];
  let fallback: Answer = opts.fallback ?? { status: 200 };
  const received: ReceivedHook[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<import("node:net").Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(rawBody.toString("utf8"));
      } catch {
        parsed = null;
      }
      const header = req.headers["x-shim-signature"];
      received.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        json: parsed,
        receivedAt: Date.now(),
        signatureOk: opts.secret ? verifySignature(Array.isArray(header) ? header[0] : header, rawBody, opts.secret).ok : null,
      });
      for (const w of waiters.splice(0)) w();
      const answer = script.shift() ?? fallback;
      const send = () => {
        if (res.destroyed) return;
        const headers: Record<string, string> = { "content-type": "text/plain" };
        if (answer.location) headers.location = answer.location;
        if (answer.neverEnd) {
          res.writeHead(answer.status, headers);
          res.write("partial");
          const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(".")), 100);
          t.unref();
          return;
        }
        res.writeHead(answer.status, headers).end(answer.bodyBytes ? Buffer.alloc(answer.bodyBytes, 97) : (answer.body ?? "ok"));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    hostPort: `127.0.0.1:${port}`,
    received,
    setScript(answers, fb) {
      script = [...answers];
      if (fb) fallback = fb;
    },
    async waitFor(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200).unref();
        });
      }
      return received.slice(0, count);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
