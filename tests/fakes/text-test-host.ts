/**
 * A minimal node:http host for handleText with an in-memory billing port, for unit tests that drive
 * the official SDKs through the codecs and adapters without a database. Not used in production.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Hold, Settlement } from "../../lib/billing/port";
import { errors } from "../../lib/gateway/errors";
import { chatCompletions, generateContent, messages, responses } from "../../lib/gateway/protocols";
import type { InboundProtocol, ParseOptions } from "../../lib/gateway/protocols/types";
import type { RetryPolicy } from "../../lib/gateway/upstreams/failover";
import type { ModelRoute } from "../../lib/gateway/model-route";
import { handleText } from "../../lib/gateway/routes/text-handler";

/** One settlement as the billing port was given it. */
export type HostSettlement = Settlement & { hold: Hold | null };

export interface TestHost {
  url: string;
  settlements: HostSettlement[];
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
  const settlements: HostSettlement[] = [];
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
        resolveRoutes: async (model) => (routes[model] ? { ok: true, value: { routes: routes[model]! } } : { ok: false, error: errors.modelNotFound(model) }),
        retry: retry ?? { retries: 1, baseDelayMs: 5, maxDelayMs: 20 },
        billing: {
          async reserve(amount) {
            if (amount > balance.available) return { ok: false, reason: "insufficient_balance" };
            balance.available -= amount;
            holds.push(amount);
            return { ok: true, hold: { kind: "row", holdId: `hold_${n++}`, amountMicroUsd: amount } };
          },
          async settle(hold, s) {
            settlements.push({ hold, costMicroUsd: s.costMicroUsd, log: s.log });
            if (hold) balance.available += hold.amountMicroUsd - s.costMicroUsd;
            return { chargedMicroUsd: s.costMicroUsd, balanceAfterMicroUsd: hold ? balance.available : null };
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
