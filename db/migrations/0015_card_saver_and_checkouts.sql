-- Money nobody controls (issue 32, items 5 and 6). The member who saved the auto top-up card:
-- when they leave the organisation the card is forgotten (and detached at Stripe), and the worker
-- never charges a card whose saver is no longer a member. Checkout Sessions the gateway opened,
-- so deleting an organisation can expire the ones still open at Stripe; and when the
-- organisation was deleted (a payment arriving later is refunded, not credited to it; "disabled"
-- alone is also the operator's suspension, whose payments are credited).
ALTER TABLE "accounts" ADD COLUMN "auto_topup_card_saved_by" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
CREATE TABLE "checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"mode" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkout_sessions_account_idx" ON "checkout_sessions" USING btree ("account_id","created_at");
