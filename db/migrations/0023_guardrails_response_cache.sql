-- Issue 41, guardrails and the exact response cache (decisions 0057, 0058): the guardrails a
-- request met and their verdict, what a cache hit saved, the per-key cache setting, and the
-- cache's table where no Redis is configured.
ALTER TABLE "request_logs" ADD COLUMN "guardrails" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "saved_micro_usd" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "response_cache" text;--> statement-breakpoint
CREATE TABLE "response_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"value" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "response_cache_expires_idx" ON "response_cache" USING btree ("expires_at");
