-- An upstream's settings beyond its base URL and key (decisions 0049, 0050): non-secret ones in
-- `settings` (an `openai` upstream's vendor, an Azure upstream's API version and Entra ids),
-- and secrets beyond the one key (an Entra client secret) encrypted in `credentials_encrypted`.
ALTER TABLE "upstreams" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "upstreams" ADD COLUMN "credentials_encrypted" text;
