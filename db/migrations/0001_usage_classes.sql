ALTER TABLE "request_logs" ALTER COLUMN "input_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "request_logs" ALTER COLUMN "output_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cache_read_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cache_write_5m_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cache_write_1h_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "reasoning_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "usage_note" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "routing" text;