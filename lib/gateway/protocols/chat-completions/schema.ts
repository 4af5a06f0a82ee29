/**
 * Chat Completions request schema: checks what we use, passes the rest through
 * (reference/chat-completions.md).
 */
import { z } from "zod";

const textPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const imagePart = z.looseObject({
  type: z.literal("image_url"),
  image_url: z.looseObject({ url: z.string(), detail: z.string().optional() }),
});
const otherPart = z.looseObject({ type: z.string() });
export const ccContentPart = z.union([textPart, imagePart, otherPart]);
export const ccContent = z.union([z.string(), z.array(ccContentPart)]).nullable().optional();

export const ccToolCall = z.looseObject({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const ccMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: ccContent,
  tool_calls: z.array(ccToolCall).optional().nullable(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

export const ccTool = z.union([
  z.looseObject({
    type: z.literal("function"),
    function: z.looseObject({
      name: z.string().min(1),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
  z.looseObject({
    type: z.literal("custom"),
    custom: z.looseObject({ name: z.string().min(1), description: z.string().optional(), format: z.unknown().optional() }),
  }),
]);

export const ccToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
  z.looseObject({ type: z.literal("custom"), custom: z.looseObject({ name: z.string() }) }),
]);

export const ccRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ccMessage).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  stop: z.union([z.string(), z.array(z.string())]).nullable().optional(),
  n: z.number().int().min(1).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  user: z.string().optional(),
  reasoning_effort: z.string().nullable().optional(),
  verbosity: z.string().nullable().optional(),
  service_tier: z.string().nullable().optional(),
  web_search_options: z.looseObject({}).nullable().optional(),
  tools: z.array(ccTool).optional(),
  tool_choice: ccToolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  response_format: z
    .union([
      z.looseObject({ type: z.literal("text") }),
      z.looseObject({ type: z.literal("json_object") }),
      z.looseObject({
        type: z.literal("json_schema"),
        json_schema: z.looseObject({
          name: z.string(),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullable().optional(),
        }),
      }),
    ])
    .optional(),
});

export type CcRequest = z.infer<typeof ccRequest>;
export type CcMessage = z.infer<typeof ccMessage>;
