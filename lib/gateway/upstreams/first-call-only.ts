/**
 * "One call at a time" (`parallel_tool_calls: false`, Anthropic's `disable_parallel_tool_use`)
 * toward an upstream with no such switch (Gemini): the client's loop runs one call per turn and
 * relies on it, so the gateway keeps the answer's first call and drops the others, plain and
 * streamed (decision 0045). The prepared call names the field in `enforced`.
 */
import type { CanonicalRequest, CanonicalResponse } from "../canonical";
import type { Outcome } from "../errors";
import type { ChunkDecoder } from "./text-http-call";
import type { CompleteResult, PreparedCall, UpstreamChunk } from "./text-types";

export const ONE_CALL = "parallel_tool_calls";

/** The field to enforce for this request, when the client asked for one call at a time. */
export function oneCallEnforced(req: CanonicalRequest): string[] | undefined {
  return req.parallelToolCalls === false && req.tools?.length ? [ONE_CALL] : undefined;
}

const enforced = (call: PreparedCall) => !!call.enforced?.includes(ONE_CALL);

export async function firstCallOnly(call: PreparedCall, result: Promise<Outcome<CompleteResult>>): Promise<Outcome<CompleteResult>> {
  const r = await result;
  if (!enforced(call) || !r.ok) return r;
  let calls = 0;
  const content = r.value.response.content.filter((p) => p.type !== "tool_call" || calls++ === 0);
  const response: CanonicalResponse = { ...r.value.response, content };
  return { ...r, value: { ...r.value, response } };
}

/** A stream decoder that lets through the events of the first call only (calls are numbered from 0). */
export function firstCallDecoder(call: PreparedCall, d: ChunkDecoder): ChunkDecoder {
  if (!enforced(call)) return d;
  const keep = (c: UpstreamChunk): UpstreamChunk => ({
    ...c,
    events: c.events.filter((e) => (e.type !== "tool_call_start" && e.type !== "tool_call_delta") || e.index === 0),
  });
  return {
    push: (data, event) => keep(d.push(data, event)),
    end: () => {
      const last = d.end();
      return last && keep(last);
    },
  };
}
