/** The WebSocket session's own rules (the gateway behind it is tests/responses-websocket.test.ts). */
import { afterEach, describe, expect, it, vi } from "vitest";
import { IDLE_CLOSE_MS, isResponsesSocket, ResponsesSession } from "./responses-socket";

function fakeSocket() {
  const sent: string[] = [];
  const closed: Array<[number, string]> = [];
  return { sent, closed, send: (d: string) => void sent.push(d), close: (code: number, reason: string) => void closed.push([code, reason]) };
}

describe("ResponsesSession", () => {
  afterEach(() => vi.useRealTimers());

  it("closes a socket idle for IDLE_CLOSE_MS, counted from its last frame", async () => {
    vi.useFakeTimers();
    const socket = fakeSocket();
    const session = new ResponsesSession(socket, { headers: {} });
    vi.advanceTimersByTime(IDLE_CLOSE_MS - 1000);
    session.receive("not json"); // answered at once with an error frame; the clock starts again
    await vi.advanceTimersByTimeAsync(IDLE_CLOSE_MS - 1000);
    expect(socket.closed).toEqual([]);
    expect(JSON.parse(socket.sent[0]!)).toMatchObject({ type: "error", status: 400 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(socket.closed).toEqual([[1000, "idle"]]);
  });

  it("knows a Responses upgrade: GET /v1/responses with Upgrade: websocket only", () => {
    expect(isResponsesSocket("GET", "/v1/responses", "websocket")).toBe(true);
    expect(isResponsesSocket("GET", "/v1/responses/?x=1", "WebSocket")).toBe(true);
    expect(isResponsesSocket("POST", "/v1/responses", "websocket")).toBe(false);
    expect(isResponsesSocket("GET", "/v1/responses/resp_1", "websocket")).toBe(false);
    expect(isResponsesSocket("GET", "/v1/responses", undefined)).toBe(false);
  });
});
