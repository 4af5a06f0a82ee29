CREATE TABLE "stored_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text,
	"status" text NOT NULL,
	"model" text NOT NULL,
	"upstream_id" text,
	"background" boolean DEFAULT false NOT NULL,
	"item_ids" text[] NOT NULL,
	"input_count" integer DEFAULT 0 NOT NULL,
	"sealed" text NOT NULL,
	"sealed_events" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "store_responses" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "replayed_items" integer;--> statement-breakpoint
ALTER TABLE "stored_responses" ADD CONSTRAINT "stored_responses_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stored_responses_account_idx" ON "stored_responses" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "stored_responses_items_idx" ON "stored_responses" USING gin ("item_ids");--> statement-breakpoint
CREATE INDEX "stored_responses_created_idx" ON "stored_responses" USING btree ("created_at");