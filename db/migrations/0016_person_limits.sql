-- Issue 32, item 8 (decision 0039): a multi-use redeem code credits each person once, not once
-- per organisation they create. On for every batch, old ones too (the admin switches it off per
-- batch when making one). Redemptions are looked up by (code, user) under the code's row lock.
-- Organisations remember who created them, so an unverified account's count is bounded even
-- across deleting and re-creating.
ALTER TABLE "redeem_batches" ADD COLUMN "once_per_user" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX "redemptions_code_user_idx" ON "redemptions" USING btree ("code_id","user_id");--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "created_by_user_id" text;--> statement-breakpoint
CREATE INDEX "accounts_created_by_idx" ON "accounts" USING btree ("created_by_user_id") WHERE "created_by_user_id" IS NOT NULL;
