/**
 * Receipt and statement PDFs with pdfkit (its built-in Helvetica: Latin text only; other
 * scripts would need an embedded font). Plain layout: header, billed-to block, a table, totals.
 */
import PDFDocument from "pdfkit";
import { formatUsd } from "../billing/money";
import type { ReceiptRow } from "./list";
import type { Statement } from "./statement";

const ISSUER = "Generation Gateway";

function render(build: (doc: PDFKit.PDFDocument) => void, info: { Title: string }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: "A4", margin: 56, info: { ...info, Author: ISSUER, Creator: ISSUER } });
    const chunks: Buffer[] = [];
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
    build(doc);
    doc.end();
  });
}

const usd = (micro: number) => `$${formatUsd(micro)}`;

function header(doc: PDFKit.PDFDocument, title: string, issuer: string, right: string[]) {
  doc.font("Helvetica-Bold").fontSize(18).text(title, 56, 56);
  doc.font("Helvetica").fontSize(10).fillColor("#52525b").text(issuer, 56, 80);
  doc.fillColor("#18181b").fontSize(10).text(right.join("\n"), 330, 56, { width: 209, align: "right" });
  doc.moveDown(3);
}

function billedTo(doc: PDFKit.PDFDocument, lines: string[], y: number) {
  doc.font("Helvetica-Bold").fontSize(10).text("Billed to", 56, y);
  doc.font("Helvetica").text(lines.join("\n"), 56, y + 14, { width: 260 });
}

function row(doc: PDFKit.PDFDocument, y: number, cells: string[], widths: number[], bold = false) {
  let x = 56;
  doc.font(bold ? "Helvetica-Bold" : "Helvetica").fontSize(10);
  cells.forEach((c, i) => {
    doc.text(c, x, y, { width: widths[i]! - 8, align: i === 0 ? "left" : "right", lineBreak: false, ellipsis: true });
    x += widths[i]!;
  });
}

export function receiptPdf(r: ReceiptRow, billed: string[], opts: { issuer: string; paymentRef?: string | null }): Promise<Buffer> {
  return render(
    (doc) => {
      header(doc, "Receipt", opts.issuer, [`Receipt ${r.number}`, `Date ${r.createdAt.toISOString().slice(0, 10)}`, ...(opts.paymentRef ? [`Payment ${opts.paymentRef}`] : [])]);
      billedTo(doc, billed, 130);
      const y = 230;
      row(doc, y, ["Description", "Amount (USD)"], [360, 123], true);
      doc.moveTo(56, y + 16).lineTo(539, y + 16).strokeColor("#d4d4d8").stroke();
      row(doc, y + 24, [r.description, usd(r.amountMicroUsd)], [360, 123]);
      doc.moveTo(56, y + 44).lineTo(539, y + 44).stroke();
      row(doc, y + 52, ["Total paid", usd(r.amountMicroUsd)], [360, 123], true);
      doc
        .font("Helvetica")
        .fontSize(9)
        .fillColor("#71717a")
        .text("Prepaid credit for API usage on this gateway. Amounts in US dollars.", 56, y + 90, { width: 483 });
    },
    { Title: `Receipt ${r.number}` },
  );
}

export function statementPdf(s: Statement, billed: string[], opts: { issuer: string; accountId: string }): Promise<Buffer> {
  return render(
    (doc) => {
      header(doc, "Statement", opts.issuer, [`Period ${s.period.month} (UTC)`, `${s.period.start.toISOString().slice(0, 10)} to ${new Date(s.period.end.getTime() - 1).toISOString().slice(0, 10)}`]);
      billedTo(doc, billed, 130);
      let y = 230;
      const w2 = [360, 123];
      const summary: [string, number][] = [
        ["Opening balance", s.openingMicroUsd],
        ["Card top-ups", s.topupsMicroUsd],
        ["Other credits (codes, administrator)", s.otherCreditsMicroUsd],
        ["Usage (net of refunds)", -s.usageMicroUsd],
        ["Adjustments (card refunds, disputes, debits)", s.adjustmentsMicroUsd],
      ];
      row(doc, y, ["Balance", "USD"], w2, true);
      y += 18;
      for (const [label, v] of summary) {
        row(doc, y, [label, usd(v)], w2);
        y += 16;
      }
      row(doc, y + 4, ["Closing balance", usd(s.closingMicroUsd)], w2, true);
      y += 40;
      const w5 = [183, 70, 80, 80, 70];
      row(doc, y, ["Spend by model", "Requests", "Input tokens", "Output tokens", "USD"], w5, true);
      y += 18;
      if (!s.byModel.length) {
        doc.font("Helvetica").fontSize(10).text("No requests in the request log for this month.", 56, y);
        y += 16;
      }
      for (const m of s.byModel) {
        if (y > 760) {
          doc.addPage();
          y = 56;
        }
        row(doc, y, [m.model, String(m.requests), String(m.inputTokens), String(m.outputTokens), usd(m.costMicroUsd)], w5);
        y += 16;
      }
      if (s.byMember) {
        y += 16;
        row(doc, y, ["Spend by member", "Requests", "", "", "USD"], w5, true);
        y += 18;
        for (const m of s.byMember) {
          row(doc, y, [m.member, String(m.requests), "", "", usd(m.costMicroUsd)], w5);
          y += 16;
        }
      }
    },
    { Title: `Statement ${s.period.month} ${opts.accountId}` },
  );
}
