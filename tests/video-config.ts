/** Gateway config and helpers shared by the video integration tests. */
import { expect } from "vitest";
import type { TestServer } from "./support/server";

export function videoGatewayConfig(videoBaseUrl: string, apiKey: string) {
  return {
    upstreams: [
      { id: "vid", protocol: "openai-video", baseUrl: videoBaseUrl, apiKey },
      { id: "vid-down", protocol: "openai-video", baseUrl: "http://127.0.0.1:1/v1", apiKey: "unused" },
      { id: "demo", protocol: "demo" },
    ],
    models: [
      { id: "vid-a", kind: "video", family: "t2v", upstream: "vid", upstreamModel: "sora-2", price: { perVideo: 0.25 } },
      // Failover: the first route is unreachable, the second serves.
      { id: "vid-failover", kind: "video", family: "t2v", upstream: "vid-down", upstreamModel: "sora-2", price: { perVideo: 0.25 } },
      { id: "vid-failover", kind: "video", family: "t2v", upstream: "vid", upstreamModel: "sora-2", price: { perVideo: 0.25 } },
      { id: "vid-i2v", kind: "video", family: "i2v", upstream: "vid", upstreamModel: "sora-2", price: { perVideo: 0.25 } },
      { id: "vid-second", kind: "video", family: "second", upstream: "vid", upstreamModel: "gen-2", price: { perSecond: 0.025 } },
      { id: "demo-video", kind: "video", family: "t2v", upstream: "demo", ownedBy: "demo", price: { perVideo: 0.25 } },
      { id: "demo-chat", kind: "text", upstream: "demo", ownedBy: "demo", price: { inputPerMTok: 0.5, outputPerMTok: 1.5 } },
    ],
  };
}

export interface Api {
  status: number;
  headers: Headers;
  json: any;
}

export function apiClient(server: TestServer, key: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Api> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, headers: res.headers, json };
  };
  return {
    call,
    submit: (body: Record<string, unknown>, headers?: Record<string, string>) => call("POST", "/v1/videos", body, headers),
    video: (id: string) => call("GET", `/v1/videos/${id}`),
    task: (id: string) => call("GET", `/v1/tasks/${id}`),
    async until(id: string, statuses: string[], timeoutMs = 45_000, seen?: Array<{ status: string; progress: number }>) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await call("GET", `/v1/videos/${id}`);
        expect(r.status).toBe(200);
        seen?.push({ status: r.json.status, progress: r.json.progress });
        if (statuses.includes(r.json.status)) return r.json;
        if (Date.now() > deadline) throw new Error(`task ${id} still ${r.json.status} after ${timeoutMs} ms`);
        await new Promise((res) => setTimeout(res, 150));
      }
    },
  };
}

export const micro = (usd: number) => Math.round(usd * 1_000_000);
