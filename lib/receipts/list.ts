/**
 * Receipts: one per credit of the account's balance (Stripe top-ups, redeemed codes, admin
 * credits), numbered by ledger row. A Stripe top-up or auto top-up links to Stripe's own receipt
 * when Stripe has one ((session →) payment intent → latest charge → receipt_url); otherwise, and for every other
 * credit, the gateway renders a PDF (pdf.ts).
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import type Stripe from "stripe";
import type { DbOrTx } from "../../db/client";
import { ledgerEntries, type LedgerKind } from "../../db/schema";

export const RECEIPT_KINDS: LedgerKind[] = ["topup", "redeem", "admin_credit"];

export interface ReceiptRow {
  id: number;
  number: string;
  createdAt: Date;
  kind: LedgerKind;
  amountMicroUsd: number;
  description: string;
  /** The Checkout Session (`cs_…`) of a Stripe top-up, or the PaymentIntent (`pi_…`) of an auto top-up. */
  stripeRef: string | null;
}

const DESCRIPTION: Partial<Record<LedgerKind, string>> = {
  topup: "Prepaid balance top-up (card, Stripe)",
  redeem: "Redeemed code",
  admin_credit: "Credit added by an administrator",
};

function toReceipt(r: typeof ledgerEntries.$inferSelect): ReceiptRow {
  const stripeRef = r.kind === "topup" ? (r.idempotencyKey.match(/^stripe:(?:session|pi):((?:cs|pi)_[A-Za-z0-9_]+)$/)?.[1] ?? null) : null;
  const auto = stripeRef?.startsWith("pi_") ?? false;
  return {
    id: r.id,
    number: `R-${String(r.id).padStart(6, "0")}`,
    createdAt: r.createdAt,
    kind: r.kind,
    amountMicroUsd: r.deltaMicroUsd,
    description: auto ? "Prepaid balance auto top-up (saved card, Stripe)" : r.kind === "redeem" && r.note ? r.note.replace(/^Redeem code/, "Redeemed code") : (DESCRIPTION[r.kind] ?? r.kind),
    stripeRef,
  };
}

export async function listReceipts(db: DbOrTx, accountId: string, limit = 200): Promise<ReceiptRow[]> {
  const rows = await db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.accountId, accountId), inArray(ledgerEntries.kind, RECEIPT_KINDS)))
    .orderBy(desc(ledgerEntries.id))
    .limit(limit);
  return rows.map(toReceipt);
}

/** One receipt of the account, or null (another account's id is not found). */
export async function findReceipt(db: DbOrTx, accountId: string, id: number): Promise<ReceiptRow | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [r] = await db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.id, id), eq(ledgerEntries.accountId, accountId), inArray(ledgerEntries.kind, RECEIPT_KINDS)));
  return r ? toReceipt(r) : null;
}

/** Stripe's receipt URL for a top-up's session or auto top-up's PaymentIntent, or null when Stripe has none. */
export async function stripeReceiptUrl(stripe: Stripe, ref: string): Promise<string | null> {
  const piRef = ref.startsWith("pi_") ? ref : (await stripe.checkout.sessions.retrieve(ref)).payment_intent;
  if (!piRef) return null;
  const pi = typeof piRef === "string" ? await stripe.paymentIntents.retrieve(piRef) : piRef;
  const chRef = pi.latest_charge;
  if (!chRef) return null;
  const charge = typeof chRef === "string" ? await stripe.charges.retrieve(chRef) : chRef;
  return charge.receipt_url ?? null;
}
