/** Messages request schema (reference/messages.md): what we use is checked, the rest passes. */
import { z } from "zod";

export const amBlock = z.looseObject({ type: z.string() });

export const amRequest = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z
    .array(
      z.looseObject({
        // The SDK types allow a mid-conversation system turn (Claude Code sends one).
        role: z.enum(["user", "assistant", "system"]),
        content: z.union([z.string(), z.array(amBlock)]),
      }),
    )
    .min(1),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal("text"), text: z.string() }))]).optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  tools: z
    .array(
      z.looseObject({
        type: z.string().optional(),
        name: z.string().min(1),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .optional(),
  tool_choice: z
    .looseObject({
      type: z.enum(["auto", "any", "tool", "none"]),
      name: z.string().optional(),
      disable_parallel_tool_use: z.boolean().optional(),
    })
    .optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
  thinking: z.looseObject({ type: z.string() }).optional(),
  output_config: z.looseObject({}).optional(),
});
