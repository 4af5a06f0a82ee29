/** The Billing routes' work: receipt download (Stripe's receipt or our PDF), statements, billing details. */
import type { DB } from "../../db/client";
import { stripePayments } from "../billing/stripe";
import { csvResponse } from "../console/csv";
import { AppError } from "../console/errors";
import type { OrgRole } from "../../db/schema";
import { env } from "../env";
import { can } from "../orgs/roles";
import { logger } from "../logger";
import { billedToLines } from "./details";
import { findReceipt, listReceipts, stripeReceiptUrl } from "./list";
import { receiptPdf, statementPdf } from "./pdf";
import { buildStatement, parseMonth, statementCsv } from "./statement";

/** Receipts, statements and billing details follow the organisation role's "billing" capability. */
export function needBilling(user: { orgRole: OrgRole }, cap: "billing" | "settings" = "billing"): void {
  if (!can(user.orgRole, cap)) throw new AppError("forbidden", cap === "billing" ? "Your role in this organisation does not include billing." : "Only the organisation's owners and admins change its settings.");
}

const issuer = () => `Generation Gateway · ${new URL(env().publicBaseUrl).host}`;

function pdfResponse(filename: string, body: Buffer): Response {
  return new Response(new Uint8Array(body), {
    status: 200,
    headers: { "content-type": "application/pdf", "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" },
  });
}

export async function receiptsFor(db: DB, accountId: string) {
  const rows = await listReceipts(db, accountId);
  return {
    items: rows.map((r) => ({
      id: r.id,
      number: r.number,
      createdAt: r.createdAt,
      kind: r.kind,
      amountMicroUsd: r.amountMicroUsd,
      description: r.description,
      source: r.stripeRef ? "stripe" : "gateway",
      url: `/api/console/billing/receipts/${r.id}`,
      pdfUrl: `/api/console/billing/receipts/${r.id}?format=pdf`,
    })),
  };
}

/**
 * A Stripe top-up answers 302 to Stripe's receipt when Stripe has one; `?format=pdf`, other
 * credits, and Stripe being off or unreachable give the gateway's PDF.
 */
export async function receiptDownload(db: DB, accountId: string, rawId: string, format: string | null): Promise<Response> {
  const receipt = /^\d{1,15}$/.test(rawId) ? await findReceipt(db, accountId, Number(rawId)) : null;
  if (!receipt) throw new AppError("not_found", "No such receipt.");
  let paymentRef: string | null = null;
  const stripe = stripePayments();
  if (receipt.stripeRef && stripe) {
    paymentRef = receipt.stripeRef;
    if (format !== "pdf") {
      try {
        const url = await stripeReceiptUrl(stripe, receipt.stripeRef);
        if (url && /^https?:\/\//.test(url)) return new Response(null, { status: 302, headers: { location: url, "cache-control": "no-store" } });
      } catch (err) {
        logger().warn({ err, receipt: receipt.number }, "Stripe receipt lookup failed; sending the gateway's PDF");
      }
    }
  }
  const pdf = await receiptPdf(receipt, await billedToLines(db, accountId), { issuer: issuer(), paymentRef });
  return pdfResponse(`receipt-${receipt.number}.pdf`, pdf);
}

export async function statementDownload(db: DB, accountId: string, month: string | null, format: string | null): Promise<Response> {
  const period = parseMonth(month ?? "");
  if (!period) throw new AppError("invalid_request", "Pick a month as YYYY-MM, not in the future.", { field: "month" });
  if (format !== "csv" && format !== "pdf") throw new AppError("invalid_request", "format: csv or pdf.", { field: "format" });
  const s = await buildStatement(db, accountId, period);
  if (format === "csv") return csvResponse(`statement-${period.month}.csv`, statementCsv(s));
  return pdfResponse(`statement-${period.month}.pdf`, await statementPdf(s, await billedToLines(db, accountId), { issuer: issuer(), accountId }));
}
