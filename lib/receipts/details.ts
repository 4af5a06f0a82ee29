/** The billed party printed on receipts and statements: the organisation's optional billing_* columns. */
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "../../db/client";
import { accounts } from "../../db/schema";

export const billingDetailsSchema = z.object({
  name: z.string().trim().max(200).optional().default(""),
  address: z.string().trim().max(1000).optional().default(""),
  taxId: z.string().trim().max(100).optional().default(""),
  email: z.union([z.literal(""), z.string().trim().max(254).email("Enter a valid email address, or leave it empty.")]).optional().default(""),
});

export interface BillingDetails {
  name: string;
  address: string;
  taxId: string;
  email: string;
}

export async function getBillingDetails(db: DbOrTx, accountId: string): Promise<BillingDetails> {
  const [row] = await db
    .select({ name: accounts.billingName, address: accounts.billingAddress, taxId: accounts.billingTaxId, email: accounts.billingEmail })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return { name: row?.name ?? "", address: row?.address ?? "", taxId: row?.taxId ?? "", email: row?.email ?? "" };
}

export async function setBillingDetails(db: DbOrTx, accountId: string, d: z.infer<typeof billingDetailsSchema>): Promise<BillingDetails> {
  await db
    .update(accounts)
    .set({ billingName: d.name || null, billingAddress: d.address || null, billingTaxId: d.taxId || null, billingEmail: d.email || null })
    .where(eq(accounts.id, accountId));
  return getBillingDetails(db, accountId);
}

/** Lines for the "Billed to" block: the details, else the account's name (its owner's email). */
export async function billedToLines(db: DbOrTx, accountId: string): Promise<string[]> {
  const d = await getBillingDetails(db, accountId);
  const [a] = await db.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, accountId));
  const lines = [d.name || a?.name || accountId, ...d.address.split(/\r?\n/).filter(Boolean)];
  if (d.taxId) lines.push(`Tax ID: ${d.taxId}`);
  if (d.email) lines.push(d.email);
  lines.push(`Account ${accountId}`);
  return lines;
}
