-- Guardrails added in Admin → Guardrails (the config file's `guardrails` stay authoritative for their ids).
CREATE TABLE IF NOT EXISTS "stored_guardrails" (
  "id" text PRIMARY KEY NOT NULL,
  "definition" jsonb NOT NULL,
  "secret_encrypted" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
