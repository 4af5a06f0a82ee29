/**
 * The `azure-openai` upstream (decision 0050): OpenAI's chat, Responses, embeddings and images
 * APIs on an Azure OpenAI (or Foundry) resource. Only where they live and how they are signed
 * differ from OpenAI's, so the OpenAI code serves them through an `OpenAIEndpoint`:
 * - `apiVersion: "v1"` (the default, Azure's current API): {baseUrl}/openai/v1/{path}, the
 *   deployment in the body's `model`;
 * - a dated version ("2024-10-21"): {baseUrl}/openai/deployments/{deployment}/{path}?api-version=…
 *   (Responses: {baseUrl}/openai/responses?api-version=…);
 * - an `api-key` header, or an Entra ID bearer token (azure-entra-token.ts), or with neither a
 *   managed identity's token (azure-managed-identity.ts).
 * The model's `upstreamModel` is the deployment name. Azure's content-filter annotations
 * (`prompt_filter_results`, `content_filter_results`) pass through to same-protocol clients;
 * a prompt it refuses (`code: "content_filter"`) is each client protocol's 400 (errors.ts).
 */
import type { EmbeddingRequest } from "../media/embedding-request";
import type { EmbeddingResult } from "../media/embedding-result";
import type { Outcome } from "../errors";
import type { ImagePlan } from "../media/image-plan";
import type { ImageRequest } from "../media/image-request";
import type { ImageResult, ImageStream } from "../media/image-result";
import type { ModelRoute, UpstreamInfo } from "../model-route";
import { entraToken, usesEntra } from "./azure-entra-token";
import { managedIdentityToken } from "./azure-managed-identity";
import { createOpenAIChatAdapter } from "./openai-chat";
import { openaiEmbed, type EmbedCallOptions } from "./openai-embed";
import type { OpenAIEndpoint } from "./openai-endpoint";
import { openaiImage, openaiImageStream, type ImageCallOptions } from "./openai-image";
import { createOpenAIResponsesAdapter } from "./openai-responses";
import type { TextAdapter } from "./text-types";
import { authenticated } from "./authenticated";

export const AZURE_DEFAULT_API_VERSION = "v1";

/** The URL of an OpenAI `path` ("chat/completions", "responses", …) on the route's Azure resource. */
export function azureUrl(route: Pick<ModelRoute, "upstream" | "upstreamModel">, path: string): string {
  const base = route.upstream.baseUrl.replace(/\/+$/, "");
  const version = route.upstream.settings?.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  if (version === "v1") return `${base}/openai/v1/${path}`;
  const q = `api-version=${encodeURIComponent(version)}`;
  if (path === "responses") return `${base}/openai/responses?${q}`;
  return `${base}/openai/deployments/${encodeURIComponent(route.upstreamModel)}/${path}?${q}`;
}

/** The resource's model list (what "Test connection" reads). */
export function azureModelsUrl(u: UpstreamInfo): string {
  const version = u.settings?.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  const base = u.baseUrl.replace(/\/+$/, "");
  return version === "v1" ? `${base}/openai/v1/models` : `${base}/openai/models?api-version=${encodeURIComponent(version)}`;
}

/**
 * The auth header: the key as `api-key`; or a bearer token, from Entra ID with the app
 * registration's secret, or, with neither, from the deployment's managed identity.
 */
export async function azureAuth(u: UpstreamInfo, signal?: AbortSignal): Promise<Outcome<Record<string, string>>> {
  if (u.apiKey) return { ok: true, value: { "api-key": u.apiKey } };
  const token = usesEntra(u) ? await entraToken(u, signal) : await managedIdentityToken(u, signal);
  return token.ok ? { ok: true, value: { authorization: `Bearer ${token.value}` } } : token;
}

/** The endpoint once the auth header is known (it is fetched per call, the token may be refreshed). */
const endpointWith =
  (auth: Record<string, string>): OpenAIEndpoint =>
  (route, path) => ({ url: azureUrl(route, path), headers: auth });

/** Azure's URLs without auth: the auth header comes per call (authenticated.ts). */
const unsigned: OpenAIEndpoint = (route, path) => ({ url: azureUrl(route, path), headers: {} });

export const azureChat = authenticated(createOpenAIChatAdapter(unsigned), azureAuth);
export const azureResponses = authenticated(createOpenAIResponsesAdapter(unsigned), azureAuth);

/** The text adapter of an Azure upstream: Chat Completions unless it is set to the Responses API. */
export function azureTextAdapter(u: UpstreamInfo): TextAdapter {
  return u.settings?.textApi === "responses" ? azureResponses : azureChat;
}

export async function azureEmbed(route: ModelRoute, req: EmbeddingRequest, opts: EmbedCallOptions): Promise<Outcome<EmbeddingResult>> {
  const auth = await azureAuth(route.upstream, opts.signal);
  return auth.ok ? openaiEmbed(route, req, opts, endpointWith(auth.value)) : auth;
}

export async function azureImage(route: ModelRoute, req: ImageRequest, plan: ImagePlan, opts: ImageCallOptions): Promise<Outcome<ImageResult>> {
  const auth = await azureAuth(route.upstream, opts.signal);
  return auth.ok ? openaiImage(route, req, plan, opts, endpointWith(auth.value)) : auth;
}

export async function azureImageStream(route: ModelRoute, req: ImageRequest, plan: ImagePlan, opts: ImageCallOptions): Promise<Outcome<ImageStream>> {
  const auth = await azureAuth(route.upstream, opts.signal);
  return auth.ok ? openaiImageStream(route, req, plan, opts, endpointWith(auth.value)) : auth;
}
