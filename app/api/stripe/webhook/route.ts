import { getDb } from "@/db/client";
import { stripePayments } from "@/lib/billing/stripe";
import { handleStripeWebhook } from "@/lib/billing/stripe-webhook";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Stripe → us. No session and no Origin check: the signature is the authentication. */
export async function POST(req: Request): Promise<Response> {
  const stripe = stripePayments();
  const secret = env().STRIPE_WEBHOOK_SECRET;
  if (!stripe || !secret) return Response.json({ error: { message: "Stripe is not configured on this gateway." } }, { status: 404 });
  // Stripe events are a few KiB; refuse anything far larger before reading it.
  if (Number(req.headers.get("content-length") ?? 0) > 1024 * 1024) return Response.json({ error: { message: "Payload too large." } }, { status: 413 });
  // The raw text, read once: re-serialising parsed JSON would break the signature.
  const rawBody = await req.text();
  try {
    const result = await handleStripeWebhook(await getDb(), stripe, { rawBody, signature: req.headers.get("stripe-signature"), secret });
    if (result.status !== 200) logger().warn({ status: result.status, reason: (result.body.error as { message?: string } | undefined)?.message }, "stripe webhook refused");
    else logger().info({ outcome: result.body.outcome, reason: result.body.reason }, "stripe webhook");
    return Response.json(result.body, { status: result.status });
  } catch (err) {
    // A 5xx makes Stripe deliver again later; the work is idempotent.
    logger().error({ err }, "stripe webhook failed");
    return Response.json({ error: { message: "Temporary failure; Stripe will retry." } }, { status: 500 });
  }
}
