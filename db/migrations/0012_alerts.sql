CREATE TABLE "alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"kind" text NOT NULL,
	"dedupe_key" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"email_state" text DEFAULT 'pending' NOT NULL,
	"email_locked_until" timestamp with time zone,
	"webhook_state" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alerts_dedupe_key_unique" UNIQUE("dedupe_key")
);
--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alerts_account_idx" ON "alerts" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "alerts_email_due_idx" ON "alerts" USING btree ("created_at") WHERE email_state in ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "alerts_webhook_due_idx" ON "alerts" USING btree ("created_at") WHERE webhook_state = 'pending';--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "low_balance_threshold_micro_usd" bigint;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "low_balance_epoch" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_email" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_webhook_url" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_webhook_secret_encrypted" text;--> statement-breakpoint
-- Low balance is detected where every balance change happens (ledger, holds' settlement, the
-- batched text settlement): in the row's own UPDATE, under its row lock, so a crossing is seen
-- exactly once whatever path or instance moved the money. The WHEN clause keeps every other
-- update at the cost of one comparison. Going back above the threshold bumps the epoch, which
-- is part of the alert's dedupe key: the next crossing alerts again (decision 0029).
CREATE FUNCTION "accounts_low_balance"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.balance_micro_usd < NEW.low_balance_threshold_micro_usd THEN
    INSERT INTO alerts (id, account_id, kind, dedupe_key, data)
    VALUES ('alrt_' || replace(gen_random_uuid()::text, '-', ''), NEW.id, 'low_balance',
            'low_balance:' || NEW.id || ':' || NEW.low_balance_epoch,
            jsonb_build_object('balance_micro_usd', NEW.balance_micro_usd, 'threshold_micro_usd', NEW.low_balance_threshold_micro_usd))
    ON CONFLICT (dedupe_key) DO NOTHING;
  ELSE
    NEW.low_balance_epoch := NEW.low_balance_epoch + 1;
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "accounts_low_balance" BEFORE UPDATE OF "balance_micro_usd" ON "accounts" FOR EACH ROW
  WHEN (NEW.low_balance_threshold_micro_usd IS NOT NULL
        AND (OLD.balance_micro_usd >= NEW.low_balance_threshold_micro_usd) IS DISTINCT FROM (NEW.balance_micro_usd >= NEW.low_balance_threshold_micro_usd))
  EXECUTE FUNCTION "accounts_low_balance"();
