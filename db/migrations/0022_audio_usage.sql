-- Issue 38, audio (docs/audio.md): what a speech or transcription request was metered on.
-- Audio tokens are parts of input_tokens / output_tokens (like the cache classes); audio_ms is
-- the duration the gateway decoded (uploaded audio, or audio produced); input_characters the
-- speech input's length (per-character prices).
ALTER TABLE "request_logs" ADD COLUMN "audio_input_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "audio_output_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "audio_ms" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "input_characters" integer;
