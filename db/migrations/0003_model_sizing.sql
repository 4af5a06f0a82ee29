ALTER TABLE "models" ADD COLUMN "context_window" integer;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "input_modalities" jsonb;