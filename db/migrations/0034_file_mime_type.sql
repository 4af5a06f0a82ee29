-- Issue 38, Anthropic's Files API shape: a file's media type as uploaded (its `mime_type`).
ALTER TABLE "files" ADD COLUMN "mime_type" text;
