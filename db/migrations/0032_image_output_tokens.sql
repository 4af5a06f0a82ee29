-- Issue 33, images drawn by text models (decision 0073): the image tokens a text model drew,
-- a part of output_tokens billed at the model's imageOutputPerMTok. The request inspector
-- shows the class from here, so its lines add up to the charge.
ALTER TABLE "request_logs" ADD COLUMN "image_output_tokens" bigint DEFAULT 0 NOT NULL;
