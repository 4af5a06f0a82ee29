-- An upstream's non-secret settings beyond its base URL and key (decision 0049): first the
-- vendor of an `openai` upstream, whose usage, reasoning and parameters differ from OpenAI's.
ALTER TABLE "upstreams" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;
