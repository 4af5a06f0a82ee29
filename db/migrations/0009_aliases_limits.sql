CREATE TABLE "model_aliases" (
	"id" text PRIMARY KEY NOT NULL,
	"targets" text[] NOT NULL,
	"context_fallback" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"source" text DEFAULT 'console' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "tpm" integer;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "max_concurrent" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "tpm" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "max_concurrent" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "served_model" text;