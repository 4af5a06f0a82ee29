-- Issue 38, files and batches (decisions 0053, 0054): uploaded files (bytes in media storage),
-- batches and their lines (the durable state the batch runner claims with leases), and the
-- request-log row of a batch line linked to its batch.
CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"key_id" text,
	"user_id" text,
	"filename" text NOT NULL,
	"purpose" text NOT NULL,
	"bytes" bigint NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "files_account_idx" ON "files" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "files_expires_idx" ON "files" USING btree ("expires_at") WHERE "deleted_at" is null;--> statement-breakpoint
CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"key_id" text,
	"user_id" text,
	"dialect" text NOT NULL,
	"endpoint" text NOT NULL,
	"input_file_id" text,
	"status" text NOT NULL,
	"principal" jsonb NOT NULL,
	"hold_id" text,
	"hold_micro_usd" bigint DEFAULT 0 NOT NULL,
	"total_lines" integer NOT NULL,
	"metadata" jsonb,
	"webhook_url" text,
	"webhook_secret_encrypted" text,
	"output_file_id" text,
	"error_file_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"cancelling_at" timestamp with time zone,
	"finalizing_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"locked_until" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "batches_account_idx" ON "batches" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "batches_open_idx" ON "batches" USING btree ("status") WHERE "status" in ('in_progress', 'cancelling', 'finalizing');--> statement-breakpoint
CREATE TABLE "batch_lines" (
	"batch_id" text NOT NULL REFERENCES "batches"("id"),
	"idx" integer NOT NULL,
	"custom_id" text NOT NULL,
	"url" text NOT NULL,
	"body" text NOT NULL,
	"body_bytes" integer NOT NULL,
	"share_micro_usd" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"claim" text,
	"due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"request_id" text NOT NULL,
	"cost_micro_usd" bigint DEFAULT 0 NOT NULL,
	"result" text,
	"ended_at" timestamp with time zone,
	CONSTRAINT "batch_lines_pk" PRIMARY KEY("batch_id","idx")
);--> statement-breakpoint
CREATE INDEX "batch_lines_due_idx" ON "batch_lines" USING btree ("due_at") WHERE "status" in ('pending', 'running');--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "batch_id" text;--> statement-breakpoint
CREATE INDEX "request_logs_batch_idx" ON "request_logs" USING btree ("batch_id") WHERE "batch_id" is not null;
