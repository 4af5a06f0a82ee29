-- Auto top-up (decision 0029): a card saved through Stripe Checkout in setup mode, and "when the
-- balance falls below X, add Y". The crossing is seen where every balance change happens, in the
-- accounts row's own UPDATE (as low balance, 0012): it inserts one auto_topups row per crossing
-- (unique per account and epoch); going back to or above the threshold bumps the epoch, which
-- re-arms it. The worker charges each pending row once, off-session, with the row id as Stripe's
-- Idempotency-Key, and the credit goes through the same idempotent ledger path as the webhook.
ALTER TABLE "accounts" ADD COLUMN "stripe_customer_id" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "auto_topup_payment_method" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "auto_topup_card" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "auto_topup_threshold_micro_usd" bigint;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "auto_topup_amount_micro_usd" bigint;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "auto_topup_epoch" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TABLE "auto_topups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"epoch" integer NOT NULL,
	"amount_micro_usd" bigint NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"locked_until" timestamp with time zone,
	"payment_intent_id" text,
	"error_code" text,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "auto_topups" ADD CONSTRAINT "auto_topups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "auto_topups_crossing_idx" ON "auto_topups" USING btree ("account_id","epoch");--> statement-breakpoint
CREATE INDEX "auto_topups_due_idx" ON "auto_topups" USING btree ("created_at") WHERE state in ('pending', 'charging');--> statement-breakpoint
CREATE INDEX "auto_topups_account_idx" ON "auto_topups" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE FUNCTION "accounts_auto_topup"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.balance_micro_usd < NEW.auto_topup_threshold_micro_usd THEN
    INSERT INTO auto_topups (id, account_id, epoch, amount_micro_usd)
    VALUES ('atu_' || replace(gen_random_uuid()::text, '-', ''), NEW.id, NEW.auto_topup_epoch, NEW.auto_topup_amount_micro_usd)
    ON CONFLICT (account_id, epoch) DO NOTHING;
  ELSE
    NEW.auto_topup_epoch := NEW.auto_topup_epoch + 1;
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
-- Only while armed (a threshold, an amount and a saved card); every other update costs one comparison.
CREATE TRIGGER "accounts_auto_topup" BEFORE UPDATE OF "balance_micro_usd" ON "accounts" FOR EACH ROW
  WHEN (NEW.auto_topup_threshold_micro_usd IS NOT NULL AND NEW.auto_topup_amount_micro_usd IS NOT NULL AND NEW.auto_topup_payment_method IS NOT NULL
        AND (OLD.balance_micro_usd >= NEW.auto_topup_threshold_micro_usd) IS DISTINCT FROM (NEW.balance_micro_usd >= NEW.auto_topup_threshold_micro_usd))
  EXECUTE FUNCTION "accounts_auto_topup"();
