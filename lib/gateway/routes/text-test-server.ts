/**
 * A minimal node:http host for handleText with in-memory billing, for unit tests that drive
 * the official SDKs through the codecs and adapters without a database. Not used in production.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { errors } from "../errors";
import { chatCompletions, generateContent, messages, responses } from "../protocols";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import type { RetryPolicy } from "../upstreams/failover";
import type { ModelRoute } from "../model-route";
import { handleText } from "./text-handler";
import type { TextSettlement } from "./text-types";

export interface TestHost {
  url: string;
  settlements: TextSettlement[];
  holds: number[];
  /** Balance in micro-USD; reserve fails (402) when a hold does not fit. */
  balance: { available: number };
  close(): Promise<void>;
}

export function protocolFor(path: string): { protocol: InboundProtocol; opts?: ParseOptions } | null {
  if (path === "/v1/chat/completions") return { protocol: chatCompletions };
  if (path === "/v1/responses") return { protocol: responses };
  if (path === "/v1/messages") return { protocol: messages };
  const m = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (m) return { protocol: generateContent, opts: { pathModel: decodeURIComponent(m[1]!), stream: m[2] === "streamGenerateContent" } };
  return null;
}

export async function startTestHost(routes: Record<string, ModelRoute[]>, retry?: RetryPolicy): Promise<TestHost> {
  const settlements: TextSettlement[] = [];
  const holds: number[] = [];
  const balance = { available: 1_000_000_000 };
  let n = 0;
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const ac = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) ac.abort();
    });
    const p = protocolFor(url.pathname);
    if (!p) {
      res.writeHead(404).end();
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const out = await handleText(
      { protocol: p.protocol, body, bodyBytes: raw.length, parseOpts: p.opts, signal: ac.signal, startedAt: performance.now(), headers: req.headers },
      {
        resolveRoutes: async (model) => (routes[model] ? { ok: true, routes: routes[model]! } : { ok: false, error: errors.modelNotFound(model) }),
        retry: retry ?? { retries: 1, baseDelayMs: 5, maxDelayMs: 20 },
        billing: {
          async reserve(amount) {
            if (amount > balance.available) return { ok: false, error: errors.insufficientQuota() };
            balance.available -= amount;
            holds.push(amount);
            return { ok: true, hold: { kind: "row", holdId: `hold_${n++}`, amountMicroUsd: amount } };
          },
          async settle(s) {
            settlements.push(s);
            if (s.hold) balance.available += s.hold.amountMicroUsd - s.costMicroUsd;
            return { chargedMicroUsd: s.costMicroUsd, balanceAfterMicroUsd: s.hold ? balance.available : null };
          },
        },
      },
    );
    res.writeHead(out.status, out.headers);
    if (out.body === null) res.end();
    else if (typeof out.body === "string" || out.body instanceof Uint8Array) res.end(out.body);
    else {
      try {
        for await (const s of out.body) {
          if (res.destroyed) break;
          res.write(s);
        }
      } finally {
        res.end();
      }
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    settlements,
    holds,
    balance,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
