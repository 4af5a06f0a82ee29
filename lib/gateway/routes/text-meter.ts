/**
 * Counts what a stream has produced so far, so that a cut stream (client gone, upstream died)
 * is billed for the prompt plus the output generated, never for error text.
 */
import type { CanonicalRequest, StreamEvent, Usage } from "../canonical";
import { estimatePromptTokens, estimateTokens } from "../tokens";
import { fillUnreported } from "../usage";

export class StreamMeter {
  private reportedInput: number | undefined;
  private reportedOutput: number | undefined;
  private outputText = "";
  final: Usage | null = null;
  sawOutput = false;

  constructor(private readonly request: CanonicalRequest) {}

  observe(ev: StreamEvent): void {
    switch (ev.type) {
      case "start":
        if (ev.inputTokens !== undefined) this.reportedInput = ev.inputTokens;
        break;
      case "usage":
        if (ev.usage.inputTokens !== undefined) this.reportedInput = ev.usage.inputTokens;
        if (ev.usage.outputTokens !== undefined) this.reportedOutput = ev.usage.outputTokens;
        break;
      case "text_delta":
        this.sawOutput = true;
        this.outputText += ev.text;
        break;
      case "tool_call_start":
        this.sawOutput = true;
        this.outputText += ` ${ev.name} `;
        break;
      case "tool_call_delta":
        this.outputText += ev.arguments;
        break;
      case "done":
        this.final = ev.usage;
        break;
    }
  }

  /** Final usage when the upstream gave it (its gaps filled by our counts), else our count of what was generated. */
  usage(): Usage {
    if (this.final)
      return fillUnreported(
        this.final,
        () => this.reportedInput ?? estimatePromptTokens(this.request),
        () => Math.max(this.reportedOutput ?? 0, estimateTokens(this.outputText)),
      );
    return {
      inputTokens: this.reportedInput ?? estimatePromptTokens(this.request),
      outputTokens: Math.max(this.reportedOutput ?? 0, estimateTokens(this.outputText)),
      estimated: true,
    };
  }
}

/**
 * Usage of a whole (non-streamed) answer: what the upstream reported, with what it did not
 * report (or reported as something other than a whole number) counted by us.
 */
export function completeUsage(u: Usage, request: CanonicalRequest, outputText: () => string): Usage {
  // An adapter may still say "estimated" with no detail: then nothing it gave is usable.
  const gaps: Usage = u.estimated && !u.unreported ? { ...u, unreported: ["input", "output"] } : u;
  return fillUnreported(gaps, () => estimatePromptTokens(request), () => estimateTokens(outputText()));
}
