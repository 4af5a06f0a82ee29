CREATE TABLE "gateway_settings" (
	"name" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upstream_health_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"model_id" text NOT NULL,
	"upstream_id" text NOT NULL,
	"state" text NOT NULL,
	"reason" text NOT NULL,
	"error_percent" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" jsonb,
	"open_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "weight" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "route_trace" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "kind" text DEFAULT 'task' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "secret_encrypted" text;--> statement-breakpoint
CREATE INDEX "upstream_health_events_entry_idx" ON "upstream_health_events" USING btree ("model_id","upstream_id","created_at");