import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../../tests/fakes/webhook-receiver";
import { createGuardedAgent, loopbackOnlyConnector } from "./guarded-dispatcher";
import { makePolicy, type Resolver } from "./ssrf";
import { attemptDelivery, drain, nextRetryDelayS } from "./webhook-client";
import { verifySignature } from "./webhook-signature";

let receiver: WebhookReceiver;
let canary: WebhookReceiver;
/** Mutable so a test can "rebind" a name between the check and the connect. */
let dnsTable: Record<string, string[]> = {};
const resolver: Resolver = async (h) => {
  const hit = dnsTable[h];
  if (!hit) throw new Error("ENOTFOUND");
  return hit;
};

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: "receiver-secret" });
  canary = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await canary.close();
});

function setup(allow: string[] = [receiver.hostPort]) {
  const policy = makePolicy({ publicBaseUrl: "https://gw.example.com", allowHosts: allow, resolve: resolver });
  const dispatcher = createGuardedAgent({ policy, baseConnect: loopbackOnlyConnector() });
  return { policy, dispatcher };
}

const body = JSON.stringify({ id: "task_abc", object: "task", status: "completed" });

describe("attemptDelivery", () => {
  it("delivers a signed body and classifies 2xx", async () => {
    const { policy, dispatcher } = setup();
    receiver.setScript([{ status: 204 }]);
    const before = receiver.received.length;
    const out = await attemptDelivery({ url: receiver.url, body, secret: "receiver-secret", deliveryId: "whd_1", timeoutMs: 2000, policy, dispatcher });
    expect(out).toMatchObject({ result: "delivered", statusCode: 204, error: null });
    const got = receiver.received[before]!;
    expect(got.rawBody.toString()).toBe(body);
    expect(got.signatureOk).toBe(true);
    expect(got.headers["x-shim-signature"]).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
    expect(got.headers["x-shim-delivery"]).toBe("whd_1");
    expect(got.headers["content-type"]).toBe("application/json");
  });

  it("re-signs every attempt with a fresh t over the same bytes", async () => {
    const { policy, dispatcher } = setup();
    receiver.setScript([{ status: 500 }, { status: 200 }]);
    const before = receiver.received.length;
    let now = 1_800_000_000;
    const a = await attemptDelivery({ url: receiver.url, body, secret: "receiver-secret", deliveryId: "whd_2", timeoutMs: 2000, policy, dispatcher, nowS: () => now });
    now += 40;
    const b = await attemptDelivery({ url: receiver.url, body, secret: "receiver-secret", deliveryId: "whd_2", timeoutMs: 2000, policy, dispatcher, nowS: () => now });
    expect([a.result, b.result]).toEqual(["retry", "delivered"]);
    const [r1, r2] = receiver.received.slice(before);
    expect(r1!.rawBody.equals(r2!.rawBody)).toBe(true);
    expect(r1!.headers["x-shim-signature"]).not.toBe(r2!.headers["x-shim-signature"]);
    expect(verifySignature(r2!.headers["x-shim-signature"] as string, r2!.rawBody, "receiver-secret", { nowS: now }).ok).toBe(true);
  });

  it("sends no signature header without a secret", async () => {
    const { policy, dispatcher } = setup();
    receiver.setScript([{ status: 200 }]);
    const before = receiver.received.length;
    await attemptDelivery({ url: receiver.url, body, secret: null, deliveryId: "whd_3", timeoutMs: 2000, policy, dispatcher });
    expect(receiver.received[before]!.headers["x-shim-signature"]).toBeUndefined();
  });

  it.each([
    [400, "stop"],
    [404, "stop"],
    [408, "stop"],
    [429, "stop"],
    [500, "retry"],
    [503, "retry"],
    [301, "retry"],
    [302, "retry"],
  ] as const)("answer %i → %s", async (status, result) => {
    const { policy, dispatcher } = setup();
    receiver.setScript([{ status, location: canary.url }]);
    const out = await attemptDelivery({ url: receiver.url, body, secret: null, deliveryId: "whd_s", timeoutMs: 2000, policy, dispatcher });
    expect(out.result).toBe(result);
    expect(out.statusCode).toBe(status);
    expect(canary.received).toHaveLength(0); // redirects are never followed
  });

  it("times out a slow receiver and says so", async () => {
    const { policy, dispatcher } = setup();
    receiver.setScript([{ status: 200, delayMs: 1500 }]);
    const out = await attemptDelivery({ url: receiver.url, body, secret: null, deliveryId: "whd_t", timeoutMs: 300, policy, dispatcher });
    expect(out).toMatchObject({ result: "retry", statusCode: null, error: "no answer within 300 ms" });
    expect(out.latencyMs).toBeLessThan(1400);
  });

  it("gives up on a receiver that sends headers and never ends the body", async () => {
    const { policy, dispatcher } = setup();
    receiver.setScript([{ status: 200, neverEnd: true }]);
    const out = await attemptDelivery({ url: receiver.url, body, secret: null, deliveryId: "whd_h", timeoutMs: 400, policy, dispatcher });
    expect(out).toMatchObject({ result: "retry", error: "no answer within 400 ms" });
  });

  it("reads a huge answer only up to 64 KiB", async () => {
    const { policy, dispatcher } = setup();
    receiver.setScript([{ status: 200, bodyBytes: 5 * 1024 * 1024 }]);
    const out = await attemptDelivery({ url: receiver.url, body, secret: null, deliveryId: "whd_b", timeoutMs: 2000, policy, dispatcher });
    expect(out.result).toBe("delivered");
  });

  it("retries on connection refused", async () => {
    const { policy, dispatcher } = setup(["127.0.0.1:1"]);
    const out = await attemptDelivery({ url: "http://127.0.0.1:1/x", body, secret: null, deliveryId: "whd_n", timeoutMs: 2000, policy, dispatcher });
    expect(out.result).toBe("retry");
    expect(out.error).toMatch(/ECONNREFUSED/);
  });

  describe("the canary receives nothing", () => {
    it("from a literal loopback URL that is not allow-listed (refused before connecting)", async () => {
      const { policy, dispatcher } = setup([]);
      const out = await attemptDelivery({ url: canary.url, body, secret: null, deliveryId: "whd_c1", timeoutMs: 2000, policy, dispatcher });
      expect(out).toMatchObject({ result: "stop", error: "webhook URL refused: points at a non-public address (loopback address)" });
    });

    it.each(["http://127.0.0.1:PORT/", "http://[::ffff:127.0.0.1]:PORT/", "http://2130706433:PORT/", "http://[::1]:PORT/"])(
      "from the dispatcher itself for literal %s (undici calls no lookup hook for literals)",
      async (u) => {
        const { dispatcher } = setup([]);
        const err = await request(u.replace("PORT", String(canary.port)), { dispatcher }).then(
          () => null,
          (e: Error & { code?: string }) => e,
        );
        expect(err).toMatchObject({ code: "ESSRFBLOCKED" });
      },
    );

    it("from a name that resolves to loopback (stubbed resolver)", async () => {
      const { policy, dispatcher } = setup([]);
      dnsTable = { "hooks.example.net": ["127.0.0.1"] };
      const out = await attemptDelivery({ url: `http://hooks.example.net:${canary.port}/`, body, secret: null, deliveryId: "whd_c3", timeoutMs: 2000, policy, dispatcher });
      expect(out.error).toMatch(/blocked: the URL has a host name that resolves to a non-public address \(loopback address\)/);
    });

    it("from a name that rebinds to loopback after passing the submission check", async () => {
      const { checkWebhookUrl } = await import("./ssrf");
      const { policy, dispatcher } = setup([]);
      dnsTable = { "rebind.example.net": ["93.184.216.34"] };
      expect((await checkWebhookUrl(`http://rebind.example.net:${canary.port}/`, policy)).ok).toBe(true);
      dnsTable = { "rebind.example.net": ["127.0.0.1"] };
      const out = await attemptDelivery({ url: `http://rebind.example.net:${canary.port}/`, body, secret: null, deliveryId: "whd_c4", timeoutMs: 2000, policy, dispatcher });
      expect(out.error).toMatch(/blocked/);
    });

    it("from the service's own domain and a non-http scheme (refused before any connect)", async () => {
      const { policy, dispatcher } = setup([]);
      const own = await attemptDelivery({ url: "https://gw.example.com/hook", body, secret: null, deliveryId: "whd_c5", timeoutMs: 2000, policy, dispatcher });
      expect(own).toMatchObject({ result: "stop", error: "webhook URL refused: points at this service" });
    });

    it("from a redirect to it", async () => {
      const { policy, dispatcher } = setup();
      receiver.setScript([{ status: 302, location: canary.url }]);
      const out = await attemptDelivery({ url: receiver.url, body, secret: null, deliveryId: "whd_c6", timeoutMs: 2000, policy, dispatcher });
      expect(out).toMatchObject({ result: "retry", statusCode: 302, error: "redirect (302) not followed" });
    });

    afterAll(() => {
      expect(canary.received).toHaveLength(0);
    });
  });
});

describe("drain", () => {
  it("stops reading past the limit", async () => {
    let pulled = 0;
    let destroyed = false;
    const body = Object.assign(
      (async function* () {
        for (let i = 0; i < 1000; i++) {
          pulled++;
          yield Buffer.alloc(16 * 1024);
        }
      })(),
      { destroy: () => (destroyed = true) },
    );
    const read = await drain(body, 64 * 1024);
    expect(read).toBe(80 * 1024);
    expect(pulled).toBe(5);
    expect(destroyed).toBe(true);
  });
});

describe("nextRetryDelayS", () => {
  it("walks the schedule and then stops", () => {
    const s = [10, 30, 60, 300, 1800, 7200];
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => nextRetryDelayS(n, s))).toEqual([10, 30, 60, 300, 1800, 7200, null]);
  });
});
