-- Issue 38, Google's Files API: the SHA-256 of a file's bytes (Gemini's `sha256Hash`), and the
-- resumable upload sessions (`X-Goog-Upload-Protocol: resumable`) whose chunks are in media storage.
ALTER TABLE "files" ADD COLUMN "sha256" text;
--> statement-breakpoint
CREATE TABLE "file_uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"key_id" text,
	"user_id" text,
	"file_id" text NOT NULL,
	"display_name" text,
	"mime_type" text NOT NULL,
	"declared_bytes" bigint,
	"received_bytes" bigint DEFAULT 0 NOT NULL,
	"part_keys" text[] DEFAULT '{}' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "file_uploads_expires_idx" ON "file_uploads" ("expires_at");
