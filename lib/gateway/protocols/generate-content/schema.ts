/** generateContent request schema (reference/generate-content.md), after camelKeys(). */
import { z } from "zod";

const gcBlob = z.looseObject({ mimeType: z.string(), data: z.string() });
const gcFileData = z.looseObject({ mimeType: z.string().optional(), fileUri: z.string() });

export const gcPart = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: gcBlob.optional(),
  fileData: gcFileData.optional(),
  functionCall: z.looseObject({ name: z.string(), args: z.record(z.string(), z.unknown()).optional(), id: z.string().optional() }).optional(),
  functionResponse: z
    .looseObject({
      name: z.string(),
      response: z.unknown().optional(),
      id: z.string().optional(),
      // Media the function returned (Gemini 3's multimodal function responses).
      parts: z.array(z.looseObject({ inlineData: gcBlob.optional(), fileData: gcFileData.optional() })).optional(),
    })
    .optional(),
});

export const gcContent = z.looseObject({
  role: z.string().optional(),
  parts: z.array(gcPart),
});

export const gcRequest = z.looseObject({
  contents: z.array(gcContent).min(1),
  systemInstruction: z.union([gcContent.partial({ parts: true }), z.string()]).optional(),
  tools: z.array(z.looseObject({ functionDeclarations: z.array(z.looseObject({ name: z.string(), description: z.string().optional(), parameters: z.unknown().optional(), parametersJsonSchema: z.unknown().optional() })).optional() })).optional(),
  toolConfig: z
    .looseObject({
      functionCallingConfig: z
        .looseObject({ mode: z.string().optional(), allowedFunctionNames: z.array(z.string()).optional() })
        .optional(),
    })
    .optional(),
  generationConfig: z
    .looseObject({
      temperature: z.number().min(0).max(2).optional(),
      topP: z.number().min(0).max(1).optional(),
      topK: z.number().int().min(1).optional(),
      candidateCount: z.number().int().min(1).optional(),
      maxOutputTokens: z.number().int().min(1).optional(),
      stopSequences: z.array(z.string()).optional(),
      seed: z.number().int().optional(),
      presencePenalty: z.number().optional(),
      frequencyPenalty: z.number().optional(),
      responseMimeType: z.string().optional(),
      responseSchema: z.unknown().optional(),
      responseJsonSchema: z.unknown().optional(),
      thinkingConfig: z
        .looseObject({ thinkingBudget: z.number().int().optional(), thinkingLevel: z.string().optional(), includeThoughts: z.boolean().optional() })
        .optional(),
    })
    .optional(),
  cachedContent: z.string().optional(),
  model: z.string().optional(),
});
