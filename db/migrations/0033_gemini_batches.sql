-- Issue 38, Gemini batch mode: a batch deleted by its client (batches.delete) is hidden from every
-- read, and its lines not yet run are cancelled; the row and its lines stay for the books.
ALTER TABLE "batches" ADD COLUMN "deleted_at" timestamp with time zone;
