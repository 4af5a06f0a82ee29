/** The client's disconnect as a signal: AbortSignal's behaviour where the gateway relies on it. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callUpstream } from "../gateway/upstreams/http";
import { sleep } from "../sleep";
import { ClientSignal } from "./client-signal";

describe("ClientSignal", () => {
  it("aborts once, with an AbortError, telling listeners and onabort", () => {
    const s = new ClientSignal();
    const heard: string[] = [];
    s.addEventListener("abort", (e) => heard.push(`listener:${e.type}`), { once: true });
    s.onabort = () => heard.push("onabort");
    expect(s.aborted).toBe(false);
    expect(() => s.throwIfAborted()).not.toThrow();
    s.abort();
    s.abort("again");
    expect(s.aborted).toBe(true);
    expect(s.reason).toBeInstanceOf(DOMException);
    expect((s.reason as DOMException).name).toBe("AbortError");
    expect(heard).toEqual(["onabort", "listener:abort"]);
    expect(() => s.throwIfAborted()).toThrow("This operation was aborted");
  });

  it("ends a sleep early", async () => {
    const s = new ClientSignal();
    const t0 = performance.now();
    setTimeout(() => s.abort(), 20);
    await sleep(10_000, s);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  describe("given to undici", () => {
    let server: http.Server;
    let url = "";
    let closed = 0;
    beforeAll(async () => {
      // Never answers: only the client's abort ends the call.
      server = http.createServer((req) => req.on("close", () => closed++));
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it("a disconnect aborts the upstream call at once, answered as the client gone (499)", async () => {
      const s = new ClientSignal();
      const t0 = performance.now();
      setTimeout(() => s.abort(), 50);
      const r = await callUpstream({ url, headers: { "content-type": "application/json" }, body: "{}", signal: s, timeoutMs: 30_000 });
      expect(performance.now() - t0).toBeLessThan(5_000);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.status).toBe(499);
      for (let i = 0; i < 100 && closed === 0; i++) await sleep(10);
      expect(closed).toBe(1); // the upstream socket was closed, not left open
    });
  });
});
