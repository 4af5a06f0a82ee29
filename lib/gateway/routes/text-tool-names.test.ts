/**
 * Tool names a target refuses (docs/conversion-policy.md, "tool names"): Gemini's MCP-style names
 * (`files.read`, `fs:write`) and over-long names go to OpenAI and Anthropic as safe stand-ins —
 * in declarations, the forced choice and history — and come back exactly, plain and streamed.
 * The fakes refuse any name outside `^[a-zA-Z0-9_-]{1,64}$`, as the vendors do.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useFourTextHost, type Up } from "../../../tests/fakes/four-text-upstreams";

const four = useFourTextHost();

const post = (path: string, body: unknown) => fetch(`${four.host.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const hash8 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 8);
const LONG = `mcp.${"very_long_server_name".repeat(4)}:tool`; // 90 characters, valid for Gemini
const LONG_STANDIN = `${LONG.replace(/[.:]/g, "_").slice(0, 55)}_${hash8(LONG)}`;
const schema = { type: "object", properties: { path: { type: "string" } } };

/** A Gemini request with MCP-style names, a forced choice and a finished call in history. */
const geminiBody = {
  contents: [
    { role: "user", parts: [{ text: "Read it" }] },
    { role: "model", parts: [{ functionCall: { name: "files.read", args: { path: "a" } } }] },
    { role: "user", parts: [{ functionResponse: { name: "files.read", response: { output: "A" } } }] },
  ],
  tools: [{ functionDeclarations: [{ name: "files.read", parametersJsonSchema: schema }, { name: "files:read", parametersJsonSchema: schema }, { name: LONG, parametersJsonSchema: schema }] }],
  toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["files.read"] } },
};

/** The stand-ins each upstream must have received, in declaration order. */
const STANDINS = ["files_read", `files_read_${hash8("files:read")}`, LONG_STANDIN];

function declared(up: Up, body: any): string[] {
  if (up === "openai") return body.tools.map((t: any) => t.function.name);
  if (up === "responses") return body.tools.map((t: any) => t.name);
  return body.tools.map((t: any) => t.name);
}

describe("Gemini's MCP-style and long tool names on OpenAI and Anthropic", () => {
  it.each(["openai", "anthropic", "responses"] as const)("to %s: stand-ins everywhere upstream, the client's names back (plain and streamed)", async (up) => {
    for (const stream of [false, true]) {
      // The model calls the stand-ins of `files:read` and of the long name.
      four.fakes[up].reset({ text: "", toolCalls: [{ name: STANDINS[1]!, arguments: '{"path":"b"}' }, { name: LONG_STANDIN, arguments: "{}" }] });
      const r = await post(`/v1beta/models/m-${up}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`, geminiBody);
      const text = await r.text();
      expect(r.status, text).toBe(200);
      const sent = four.fakes[up].generationRequests().at(-1)!;
      expect(sent.refused).toBeUndefined();
      expect(declared(up, sent.body)).toEqual(STANDINS);
      const wire = JSON.stringify(sent.body);
      expect(wire).not.toContain("files.read");
      if (up === "openai") expect(sent.body.tool_choice).toEqual({ type: "function", function: { name: "files_read" } });
      if (up === "anthropic") expect(sent.body.tool_choice).toMatchObject({ type: "tool", name: "files_read" });
      if (up === "responses") expect(sent.body.tool_choice).toEqual({ type: "function", name: "files_read" });
      // History: the earlier call goes under its stand-in too.
      expect(wire).toMatch(up === "anthropic" ? /"type":"tool_use"[^}]*"name":"files_read"/ : /"name":"files_read"/);
      const calls = [...text.matchAll(/"functionCall":\{[^}]*?"name":"([^"]+)"/g)].map((m) => m[1]);
      expect(calls).toEqual(["files:read", LONG]);
    }
  });

  it("an OpenAI name Gemini refuses (a leading digit) gets a stand-in there, and comes back as sent", async () => {
    four.fakes.gemini.reset({ text: "", toolCalls: [{ name: "_3d-render", arguments: "{}" }] });
    const r = await post("/v1/chat/completions", { model: "m-gemini", tools: [{ type: "function", function: { name: "3d-render", parameters: schema } }], messages: [{ role: "user", content: "go" }] });
    const body = (await r.json()) as any;
    expect(r.status).toBe(200);
    expect(four.fakes.gemini.generationRequests().at(-1)!.body.tools[0].functionDeclarations[0].name).toBe("_3d-render");
    expect(body.choices[0].message.tool_calls[0].function.name).toBe("3d-render");
  });
});
