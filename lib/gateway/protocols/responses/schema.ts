/** Responses request schema: what we use is checked, the rest passes (reference/responses.md). */
import { z } from "zod";

export const rsContentPart = z.looseObject({ type: z.string() });

// Items replayed by clients (Codex) carry nulls in fields their type does not use: accepted.
export const rsItem = z.looseObject({
  type: z.string().optional(),
  role: z.enum(["user", "assistant", "system", "developer"]).nullable().optional(),
  content: z.union([z.string(), z.array(rsContentPart)]).nullable().optional(),
  call_id: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  arguments: z.string().nullable().optional(),
  output: z.union([z.string(), z.array(rsContentPart)]).nullable().optional(),
  input: z.string().nullable().optional(),
  namespace: z.string().nullable().optional(),
});

export const rsTool = z.looseObject({
  type: z.string(),
  name: z.string().optional(),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
});

export const rsRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(rsItem)]),
  instructions: z.string().nullable().optional(),
  max_output_tokens: z.number().int().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  tools: z.array(rsTool).optional(),
  tool_choice: z
    .union([
      z.enum(["none", "auto", "required"]),
      z.looseObject({ type: z.literal("function"), name: z.string() }),
      z.looseObject({ type: z.string() }),
    ])
    .optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
  background: z.boolean().nullable().optional(),
  conversation: z.unknown().optional(),
  store: z.boolean().nullable().optional(),
  user: z.string().optional(),
  reasoning: z.looseObject({ effort: z.string().nullable().optional(), summary: z.string().nullable().optional() }).nullable().optional(),
  service_tier: z.string().nullable().optional(),
  text: z
    .looseObject({
      format: z
        .looseObject({
          type: z.string(),
          name: z.string().optional(),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullable().optional(),
        })
        .optional(),
      verbosity: z.string().nullable().optional(),
    })
    .optional(),
});
