-- Issue 38, decision 0070: batch lines served through a vendor's own batch API. A line bound for
-- such an upstream names its catalog entry (`native_route`) and, once submitted, the vendor
-- batch that holds it; the gateway runner never claims either. One row per vendor batch: the
-- vendor's id (never shown to the client), its state and when it was last polled.
ALTER TABLE "batch_lines" ADD COLUMN "native_route" text;--> statement-breakpoint
ALTER TABLE "batch_lines" ADD COLUMN "vendor_batch_id" text;--> statement-breakpoint
CREATE TABLE "vendor_batches" (
	"id" text PRIMARY KEY NOT NULL,
	"batch_id" text NOT NULL REFERENCES "batches"("id"),
	"route_id" text NOT NULL,
	"upstream_id" text NOT NULL,
	"protocol" text NOT NULL,
	"vendor_id" text,
	"status" text NOT NULL,
	"lines" integer NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"polled_at" timestamp with time zone,
	"due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cancel_requested_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "vendor_batches_due_idx" ON "vendor_batches" ("due_at") WHERE status in ('submitting', 'submitted');--> statement-breakpoint
CREATE INDEX "vendor_batches_batch_idx" ON "vendor_batches" ("batch_id");--> statement-breakpoint
CREATE INDEX "batch_lines_native_idx" ON "batch_lines" ("batch_id", "native_route") WHERE status = 'pending' AND native_route IS NOT NULL;
