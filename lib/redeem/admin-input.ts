/** The admin console's and API's batch form, parsed into BatchInput (amount in USD text). */
import { z } from "zod";
import { parseUsd } from "../billing/money";
import { AppError } from "../app-error";
import { batchProblem, type BatchInput } from "./batches";

export const batchSchema = z.object({
  amountUsd: z.union([z.string(), z.number()]).transform((v) => String(v)),
  count: z.coerce.number().int("Whole codes only.").default(1),
  maxRedemptions: z.coerce.number().int("A whole number of uses.").default(1),
  /** false: one person may redeem a multi-use code once in each of their organisations. */
  oncePerUser: z.boolean().default(true),
  expiresAt: z.union([z.literal(""), z.null(), z.string().max(40)]).optional(),
  note: z.string().trim().max(500).optional(),
});

export function batchInput(body: z.infer<typeof batchSchema>, actor: BatchInput["actor"]): BatchInput {
  const amount = parseUsd(body.amountUsd.trim());
  if (amount === null) throw new AppError("invalid_request", "Enter an amount in USD like 10 or 2.50.", { field: "amount" });
  let expiresAt: Date | null = null;
  if (body.expiresAt) {
    expiresAt = new Date(body.expiresAt);
    if (Number.isNaN(expiresAt.getTime())) throw new AppError("invalid_request", "Enter the expiry as a date.", { field: "expiresAt" });
  }
  const input = { amountMicroUsd: amount, count: body.count, maxRedemptions: body.maxRedemptions, oncePerUser: body.oncePerUser, expiresAt, note: body.note || null, actor };
  const problem = batchProblem(input);
  if (problem) throw new AppError("invalid_request", problem.message, { field: problem.field });
  return input;
}
