/**
 * Routes of the text capability: three generation protocols and Anthropic's count_tokens
 * (Google's model methods are in google.ts).
 * Each is a thin shell: read the body, pick the protocol, hand over to handleText with the
 * catalog's routes and the database billing.
 */
import { getDb } from "../../../db/client";
import { env } from "../../env";
import { resolveModel } from "../catalog";
import { errors } from "../errors";
import { json, type GatewayResponse } from "../http";
import { chatCompletions, generateContent, messages } from "../protocols";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import { estimatePromptTokens } from "../tokens";
import type { RouteContext, RouteDef } from "../types";
import { createResponse } from "../stored-responses/create";
import { inlineFileRefs } from "../files/inline-refs";
import { textCall } from "./text-call";
import { compactHandler } from "../stored-responses/compact";
import { storedResponseRoutes } from "../stored-responses/routes";

/**
 * Agents resend whole conversations with images and PDFs every turn: the default (32 MiB) is
 * Anthropic's own request limit; operators change it with TEXT_BODY_LIMIT_MB.
 */
export const TEXT_BODY_LIMIT = () => env().TEXT_BODY_LIMIT_MB * 1024 * 1024;

export function generation(path: string, protocol: InboundProtocol, opts?: (ctx: RouteContext) => ParseOptions): (ctx: RouteContext) => Promise<GatewayResponse> {
  return async (ctx) => {
    // readJson refuses invalid UTF-8 and absurd nesting; readBody is the same (memoized) bytes.
    const parsed = await ctx.readJson();
    if (!parsed.ok) return ctx.error(parsed.error);
    const raw = await ctx.readBody();
    if (!raw.ok) return ctx.error(raw.error);
    const body = parsed.value;
    if (!body || typeof body !== "object" || Array.isArray(body)) return ctx.error(errors.invalidRequest("Request body must be a JSON object."));
    return textCall(ctx, await getDb(), path, { protocol, body, bodyBytes: raw.value.length, parseOpts: opts?.(ctx), requestBody: () => raw.value.toString("utf8") });
  };
}

export const textRoutes: RouteDef[] = [
  { method: "POST", path: "/v1/chat/completions", bodyLimit: TEXT_BODY_LIMIT, handler: generation("/v1/chat/completions", chatCompletions) },
  // POST /v1/responses (stateful: stored responses, previous_response_id) and its GET/DELETE routes.
  { method: "POST", path: "/v1/responses", bodyLimit: TEXT_BODY_LIMIT, handler: (ctx) => createResponse(ctx, "/v1/responses") },
  { method: "POST", path: "/v1/responses/compact", bodyLimit: TEXT_BODY_LIMIT, handler: compactHandler },
  ...storedResponseRoutes,
  {
    method: "POST",
    path: "/v1/messages",
    bodyLimit: TEXT_BODY_LIMIT,
    transports: { xApiKey: true },
    errorStyle: "anthropic",
    handler: generation("/v1/messages", messages),
  },
  {
    // docs/design.md: served as an estimate (the same count we bill by when an upstream gives none).
    method: "POST",
    path: "/v1/messages/count_tokens",
    bodyLimit: TEXT_BODY_LIMIT,
    transports: { xApiKey: true },
    errorStyle: "anthropic",
    async handler(ctx) {
      const body = await ctx.readJson();
      if (!body.ok) return ctx.error(body.error);
      // Documents and images named by file id count as their bytes (decision 0074).
      const inlined = await inlineFileRefs(await getDb(), ctx.principal, "messages", body.value);
      if (!inlined.ok) return ctx.error(inlined.error);
      const b = (inlined.value?.body ?? body.value) as Record<string, unknown>;
      const parsed = messages.parseRequest({ max_tokens: 1, ...(b && typeof b === "object" ? b : {}) });
      if (!parsed.ok) return ctx.error(parsed.error);
      const resolved = await resolveModel(ctx.principal, parsed.value.model, ["text"], ctx.observe);
      if (!resolved.ok) return ctx.error(resolved.error);
      return json(200, { input_tokens: estimatePromptTokens(parsed.value) });
    },
  },
];
