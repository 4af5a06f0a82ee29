-- Issue 41, content logs and audit export (decisions 0059, 0060).
-- Content logging is opt-in per organisation ('off' by default) and may be narrowed per key
-- (null = the organisation's). The redaction list is the organisation's own patterns; the
-- built-ins (API keys, card numbers, emails) are named in content_log_builtins.
ALTER TABLE "accounts" ADD COLUMN "content_log_mode" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "content_log_retention_days" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "content_log_redact" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "content_log_builtins" text[] DEFAULT '{api_keys,card_numbers,emails}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "audit_webhook_url" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "audit_webhook_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "content_log_mode" text;--> statement-breakpoint
CREATE TABLE "content_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"request_id" text NOT NULL,
	"key_id" text,
	"user_id" text,
	"model" text,
	"stream" boolean DEFAULT false NOT NULL,
	"bytes" integer NOT NULL,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "content_logs_request_idx" ON "content_logs" USING btree ("account_id","request_id");--> statement-breakpoint
CREATE INDEX "content_logs_created_idx" ON "content_logs" USING btree ("created_at");--> statement-breakpoint
-- The audit log gains the organisation it concerns (null: an instance-wide action), so an
-- organisation's admins can read and export their own; older rows are filled from what they named.
ALTER TABLE "audit_log" ADD COLUMN "account_id" text;--> statement-breakpoint
UPDATE "audit_log" SET "account_id" = coalesce("details"->>'accountId', CASE WHEN "target_type" = 'account' THEN "target_id" END, (SELECT k."account_id" FROM "api_keys" k WHERE "target_type" = 'api_key' AND k."id" = "target_id"));--> statement-breakpoint
CREATE INDEX "audit_log_account_idx" ON "audit_log" USING btree ("account_id","id");
