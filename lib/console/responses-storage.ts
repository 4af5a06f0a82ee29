/**
 * Billing page: whether the account's Responses API responses are stored, and the operator's
 * retention. Turning it off applies to every key of the account at once (cache invalidation)
 * and stores nothing from then on; responses stored before stay until deleted or expired.
 */
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { DB } from "../../db/client";
import { accounts } from "../../db/schema";
import { env } from "../env";
import { notifyInvalidation } from "../invalidation";
import type { ResponsesStorageView } from "../views";

export const responsesStorageSchema = z.object({ storeResponses: z.boolean() });

export async function responsesStorage(db: DB, accountId: string): Promise<ResponsesStorageView> {
  const [a] = await db.select({ storeResponses: accounts.storeResponses }).from(accounts).where(eq(accounts.id, accountId));
  return { storeResponses: a?.storeResponses ?? true, responsesRetentionDays: env().RESPONSES_RETENTION_DAYS };
}

export async function setResponsesStorage(db: DB, accountId: string, storeResponses: boolean): Promise<ResponsesStorageView> {
  await db.update(accounts).set({ storeResponses }).where(eq(accounts.id, accountId));
  // Keys carry the setting in their cached principal: drop them everywhere.
  await notifyInvalidation({ kind: "accounts", ids: [accountId] });
  return responsesStorage(db, accountId);
}
