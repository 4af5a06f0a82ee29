/**
 * An OTLP/HTTP trace receiver on 127.0.0.1:0, as a collector would run it: POST /v1/traces
 * with the JSON encoding of ExportTraceServiceRequest (what @opentelemetry/exporter-trace-otlp-http
 * sends). It answers like a collector (200 with an empty partial-success object), refuses any
 * other content type with 415, and keeps every span with its attributes decoded to plain values.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean | unknown[]>;
  status: { code?: number };
  service: string;
  startNs: bigint;
  endNs: bigint;
}

export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  /** Raw request bodies, to check what never reaches the collector. */
  bodies: string[];
  /** Waits until `pred` holds for the spans received so far. */
  waitFor(pred: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function value(v: AnyValue): string | number | boolean | unknown[] {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return "";
}

function attributes(list: Array<{ key: string; value: AnyValue }> | undefined): ReceivedSpan["attributes"] {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") return void res.writeHead(404).end();
      if (!String(req.headers["content-type"] ?? "").startsWith("application/json")) return void res.writeHead(415).end();
      const text = Buffer.concat(chunks).toString("utf8");
      bodies.push(text);
      const body = JSON.parse(text) as { resourceSpans?: any[] };
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributes(rs.resource?.attributes)["service.name"] ?? "");
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? "",
              name: s.name,
              kind: s.kind,
              attributes: attributes(s.attributes),
              status: s.status ?? {},
              service,
              startNs: BigInt(s.startTimeUnixNano),
              endNs: BigInt(s.endTimeUnixNano),
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    async waitFor(pred, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (!pred(spans)) {
        if (Date.now() > until) throw new Error(`spans not received in time; have: ${spans.map((s) => s.name).join(", ")}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
