/** The one failover loop: retries, failover, stopping, and the health hooks (order, onOutcome). */
import { afterEach, describe, expect, it } from "vitest";
import { classifyFailure, clientGone, errorResponse, errors, parseRetryAfter, redactUpstream, transportFailure, type Outcome } from "../errors";
import { failover, installFailoverHooks, type AttemptReport } from "./failover";

type E = { id: string };
const A: E = { id: "a" };
const B: E = { id: "b" };
const C: E = { id: "c" };
const fast = { baseDelayMs: 1, maxDelayMs: 2 };

/** An attempt that answers from a per-entry script, one outcome per call (the last repeats). */
function scripted(script: Record<string, Outcome<string>[]>) {
  const calls: string[] = [];
  const attempt = async (e: E): Promise<Outcome<string>> => {
    calls.push(e.id);
    const list = script[e.id]!;
    return list.length > 1 ? list.shift()! : list[0]!;
  };
  return { calls, attempt };
}
const ok = (v: string): Outcome<string> => ({ ok: true, value: v });
const s500 = classifyFailure(500, "");
const s401 = classifyFailure(401, "");
const s400 = classifyFailure(400, '{"error":{"message":"bad field"}}');

describe("failover", () => {
  afterEach(() => installFailoverHooks({})());

  it("retries a retryable failure on the same entry, then moves on", async () => {
    const { calls, attempt } = scripted({ a: [s500], b: [ok("from b")] });
    const r = await failover([A, B], attempt, { retries: 2, ...fast });
    expect(r).toMatchObject({ ok: true, value: "from b", route: B, attempts: 4 });
    expect(calls).toEqual(["a", "a", "a", "b"]);
  });

  it("moves on at once after a failover-only failure (our credentials refused), without retrying", async () => {
    const { calls, attempt } = scripted({ a: [s401], b: [ok("b")] });
    expect(await failover([A, B], attempt, { retries: 2, ...fast })).toMatchObject({ ok: true, route: B });
    expect(calls).toEqual(["a", "b"]);
  });

  it("stops at the request's own 4xx and answers it", async () => {
    const { calls, attempt } = scripted({ a: [s400], b: [ok("b")] });
    const r = await failover([A, B], attempt, { retries: 2, ...fast });
    expect(r).toMatchObject({ ok: false, route: A, error: { status: 400 } });
    expect(calls).toEqual(["a"]);
  });

  it("answers the last failure when every entry fails, and a 502 when there was none to try", async () => {
    const { attempt } = scripted({ a: [s500], b: [transportFailure({ code: "UND_ERR_HEADERS_TIMEOUT" })] });
    expect(await failover([A, B], attempt)).toMatchObject({ ok: false, route: B, attempts: 2, error: { status: 504, code: "upstream_timeout" } });
    expect(await failover([], attempt)).toMatchObject({ ok: false, route: null, attempts: 0, error: { status: 502, code: "upstream_error" } });
  });

  it("waits the upstream's Retry-After between retries, and moves on when it is longer than the longest wait", async () => {
    const short = classifyFailure(429, "", { "retry-after-ms": "120" });
    const { calls, attempt } = scripted({ a: [short, ok("a")], b: [ok("b")] });
    const t = performance.now();
    expect(await failover([A, B], attempt, { retries: 2, baseDelayMs: 1, maxDelayMs: 1000 })).toMatchObject({ ok: true, route: A });
    expect(performance.now() - t).toBeGreaterThanOrEqual(110);
    expect(calls).toEqual(["a", "a"]);

    // A quota window (60 s) is not waited out: the next entry at once, then the wait to the client.
    const quota = classifyFailure(429, "", { "retry-after": "60" });
    const second = scripted({ a: [quota], b: [ok("b")] });
    const t2 = performance.now();
    expect(await failover([A, B], second.attempt, { retries: 2, baseDelayMs: 1, maxDelayMs: 1000 })).toMatchObject({ ok: true, route: B });
    expect(second.calls).toEqual(["a", "b"]);
    const alone = scripted({ a: [quota] });
    expect(await failover([A], alone.attempt, { retries: 2, baseDelayMs: 1, maxDelayMs: 1000 })).toMatchObject({ ok: false, error: { status: 429, headers: { "retry-after": "60" } } });
    expect(alone.calls).toEqual(["a"]);
    expect(performance.now() - t2).toBeLessThan(500);
  });

  it("tries nothing more once the client has gone", async () => {
    const ac = new AbortController();
    const { calls, attempt } = scripted({ a: [s500], b: [ok("b")] });
    const r = await failover([A, B], async (e) => (ac.abort(), attempt(e)), { retries: 2, signal: ac.signal, ...fast });
    expect(r.ok).toBe(false);
    expect(calls).toEqual(["a"]);
  });

  it("lets `order` choose and reorder the entries, and `onOutcome` hear every attempt with whose fault it was", async () => {
    const reports: AttemptReport<E>[] = [];
    const { calls, attempt } = scripted({ a: [ok("a")], b: [s500, ok("b")], c: [s401] });
    const r = await failover([A, B, C], attempt, {
      retries: 1,
      ...fast,
      order: (es) => es.filter((e) => e !== A).reverse(), // a's circuit is open
      onOutcome: (rep) => reports.push(rep),
    });
    expect(r).toMatchObject({ ok: true, value: "b", route: B });
    expect(calls).toEqual(["c", "b", "b"]);
    expect(reports.map((x) => [x.entry.id, x.ok, x.fault, x.retry])).toEqual([
      ["c", false, "upstream", 0],
      ["b", false, "upstream", 0],
      ["b", true, "none", 1],
    ]);
    expect(reports.every((x) => x.latencyMs >= 0)).toBe(true);
  });

  it("reports the request's own 4xx and a departed client as not the upstream's fault", async () => {
    const faults: string[] = [];
    const onOutcome = (rep: AttemptReport<E>) => faults.push(rep.fault);
    await failover([A], scripted({ a: [s400] }).attempt, { onOutcome });
    await failover([A], scripted({ a: [clientGone()] }).attempt, { onOutcome });
    expect(faults).toEqual(["request", "client"]);
  });

  it("uses hooks installed for the process unless the call brings its own, and survives a hook that throws", async () => {
    const seen: string[] = [];
    const uninstall = installFailoverHooks<E>({ order: (es) => [...es].reverse(), onOutcome: () => { throw new Error("broken hook"); } });
    const { calls, attempt } = scripted({ a: [ok("a")], b: [ok("b")] });
    expect(await failover([A, B], attempt)).toMatchObject({ ok: true, value: "b" });
    await failover([A, B], attempt, { order: (es) => es, onOutcome: (r) => seen.push(r.entry.id) });
    expect(calls).toEqual(["b", "a"]);
    expect(seen).toEqual(["a"]);
    uninstall();
    await failover([A, B], attempt);
    expect(calls.at(-1)).toBe("a");
  });
});

describe("classifyFailure", () => {
  it("gives every capability the same verdict for the same status", () => {
    expect(classifyFailure(401, "")).toMatchObject({ retryable: false, failover: true, error: { status: 502, type: "upstream_error", code: "upstream_error" } });
    expect(classifyFailure(403, "")).toMatchObject({ retryable: false, failover: true, error: { status: 502 } });
    expect(classifyFailure(429, "", { "retry-after": "2" })).toMatchObject({ retryable: true, retryAfterMs: 2000, error: { status: 429, type: "rate_limit_error", code: "rate_limit_exceeded", headers: { "retry-after": "2" } } });
    expect(classifyFailure(408, "")).toMatchObject({ retryable: true, error: { status: 502 } });
    expect(classifyFailure(500, "")).toMatchObject({ retryable: true, error: { status: 502, code: "upstream_error" } });
    expect(classifyFailure(503, "", { "retry-after-ms": "150" })).toMatchObject({ retryable: true, retryAfterMs: 150, error: { status: 503, code: "upstream_overloaded", headers: { "retry-after": "1" } } });
    expect(classifyFailure(529, "")).toMatchObject({ retryable: true, error: { status: 503, code: "upstream_overloaded", headers: undefined } });
    expect(classifyFailure(404, '{"error":{"message":"no such model"}}')).toMatchObject({
      retryable: false,
      error: { status: 404, type: "upstream_error", message: "The upstream rejected the request: no such model" },
    });
    expect(classifyFailure(422, "not json").error.message).toBe("The upstream rejected the request: no message");
  });

  it("reads the upstream's wait from retry-after-ms, retry-after (seconds or HTTP date) and Gemini's RetryInfo", () => {
    const now = Date.parse("2026-11-28T12:00:00Z");
    expect(parseRetryAfter({ "retry-after-ms": "1500", "retry-after": "9" })).toBe(1500);
    expect(parseRetryAfter({ "retry-after": "3" })).toBe(3000);
    expect(parseRetryAfter({ "retry-after": "Sat, 28 Nov 2026 12:00:07 GMT" }, "", now)).toBe(7000);
    expect(parseRetryAfter({ "retry-after": "Sat, 28 Nov 2026 11:59:00 GMT" }, "", now)).toBeUndefined();
    const gemini = (delay: string) =>
      JSON.stringify({ error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "Quota exceeded", details: [{ "@type": "type.googleapis.com/google.rpc.QuotaFailure" }, { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delay }] } });
    expect(parseRetryAfter({}, gemini("7s"))).toBe(7000);
    expect(parseRetryAfter({}, gemini("0.25s"))).toBe(250);
    expect(parseRetryAfter({}, gemini("soon"))).toBeUndefined();
    expect(parseRetryAfter({}, "not json RetryInfo")).toBeUndefined();
    expect(classifyFailure(429, gemini("37s")).error.headers).toEqual({ "retry-after": "37" });
  });

  it("renders a persistent rate limit and an overload in each protocol's shape, with the wait", () => {
    const limited = classifyFailure(429, '{"error":{"message":"slow down"}}', { "retry-after": "7" }).error;
    const overloaded = classifyFailure(529, "", { "retry-after": "2" }).error;
    const body = (r: { body: unknown }) => JSON.parse(r.body as string);
    const oa = errorResponse(limited, "openai");
    expect([oa.status, oa.headers["retry-after"], oa.headers["x-should-retry"]]).toEqual([429, "7", undefined]);
    expect(body(oa).error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(body(errorResponse(limited, "anthropic"))).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    const g = errorResponse(limited, "gemini");
    expect(body(g).error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(body(g).error.details).toContainEqual({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7s" });
    const an = errorResponse(overloaded, "anthropic");
    expect([an.status, an.headers["retry-after"], body(an).error.type]).toEqual([529, "2", "overloaded_error"]);
    expect(errorResponse(overloaded, "openai").status).toBe(503);
    expect(body(errorResponse(overloaded, "gemini")).error).toMatchObject({ code: 503, status: "UNAVAILABLE" });
  });

  it("never passes on our key, the upstream's URL or host, or anything key-shaped", () => {
    const text = JSON.stringify({ error: { message: "key sk-live-abcdefgh1234 / Bearer xyz.123 / AIzaSyA1234567890123456789012 at http://10.0.0.7:8080/v1 or 10.0.0.7:8080, our key s3cr3t-k3y" } });
    const m = classifyFailure(400, text, {}, { secret: "s3cr3t-k3y", url: "http://10.0.0.7:8080/v1/embeddings" }).error.message;
    for (const leak of ["sk-live", "xyz.123", "AIza", "10.0.0.7", "8080", "s3cr3t"]) expect(m).not.toContain(leak);
    expect(redactUpstream("at upstream.example:443 now", { url: "https://upstream.example:443/v1" })).toBe("at [upstream] now");
  });

  it("turns transport errors into 504 (timeouts) or 502 (resets), both retryable, and the client leaving into 499", () => {
    expect(transportFailure({ code: "UND_ERR_BODY_TIMEOUT" })).toMatchObject({ retryable: true, error: errors.upstreamTimeout() });
    expect(transportFailure({ code: "ECONNRESET" })).toMatchObject({ retryable: true, error: { status: 502 } });
    expect(transportFailure(new Error("x"), AbortSignal.abort())).toMatchObject({ retryable: false, error: { status: 499 } });
  });
});
