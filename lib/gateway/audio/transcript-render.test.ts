import { describe, expect, it } from "vitest";
import { openaiTranscriptionUsage, renderTranscript, stamp } from "./transcript-render";

const t = { text: "Hello there. General Kenobi.", language: "english", segments: [{ start: 0, end: 1.25, text: " Hello there." }, { start: 1.25, end: 3723.5, text: " General Kenobi." }], usage: null };

describe("renderTranscript", () => {
  it("srt and vtt from the segments", () => {
    expect(renderTranscript(t, "srt", 3_723_500, false, undefined).body).toBe("1\n00:00:00,000 --> 00:00:01,250\nHello there.\n\n2\n00:00:01,250 --> 01:02:03,500\nGeneral Kenobi.\n");
    expect(renderTranscript(t, "vtt", 3_723_500, false, undefined)).toEqual({ contentType: "text/vtt; charset=utf-8", body: "WEBVTT\n\n00:00:00.000 --> 00:00:01.250\nHello there.\n\n00:00:01.250 --> 01:02:03.500\nGeneral Kenobi.\n" });
  });

  it("one segment over the decoded duration when the upstream gave none", () => {
    expect(renderTranscript({ text: "Hi.", usage: null }, "srt", 2500, false, undefined).body).toBe("1\n00:00:00,000 --> 00:00:02,500\nHi.\n");
  });

  it("json, text and verbose_json in OpenAI's shapes", () => {
    const usage = openaiTranscriptionUsage(null, 2500);
    expect(usage).toEqual({ type: "duration", seconds: 3 });
    expect(JSON.parse(renderTranscript(t, "json", 3000, false, usage).body)).toEqual({ text: t.text, usage });
    expect(renderTranscript(t, "text", 3000, false, usage)).toEqual({ contentType: "text/plain; charset=utf-8", body: `${t.text}\n` });
    const v = JSON.parse(renderTranscript(t, "verbose_json", 3000, true, usage).body);
    expect(v).toMatchObject({ task: "translate", language: "english", duration: 3, text: t.text, segments: [{ id: 0, start: 0, end: 1.25 }, { id: 1 }] });
  });

  it("token usage in OpenAI's shape", () => {
    expect(openaiTranscriptionUsage({ textInputTokens: 5, audioInputTokens: 10, textOutputTokens: 9, audioOutputTokens: 0 }, 1000)).toEqual({
      type: "tokens",
      input_tokens: 15,
      input_token_details: { text_tokens: 5, audio_tokens: 10 },
      output_tokens: 9,
      total_tokens: 24,
    });
  });

  it("stamps", () => {
    expect(stamp(0.0004, ",")).toBe("00:00:00,000");
    expect(stamp(59.9996, ".")).toBe("00:01:00.000");
  });
});
