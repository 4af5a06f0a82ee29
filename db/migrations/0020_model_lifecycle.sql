-- Issue 33, model lifecycle (decision 0051): when a model is deprecated and shut down, and what
-- replaces it. Entries sharing a public model id share these, like the price. The index lets
-- the console find the keys that still called a deprecated model (request_logs by model, recent).
ALTER TABLE "models" ADD COLUMN "deprecated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "shutdown_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "successor" text;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "serve_successor_after_shutdown" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "request_logs_model_idx" ON "request_logs" USING btree ("model","created_at");
