/**
 * "Test connection" per protocol (the provider registry's `probe`): the one cheap authenticated
 * read that says the upstream is reachable and takes our credentials — a model or task list,
 * after getting the token where the protocol needs one. A probe answers the request to send, or
 * why there is nothing to send (no credentials); lib/console/admin-catalog.ts sends it.
 */
import type { UpstreamInfo } from "../model-route";
import { BFL_BASE, xKey } from "./bfl-image";
import { azureAuth, azureModelsUrl } from "./azure-openai";
import { bedrockControlUrl, signBedrock } from "./bedrock-auth";
import { GEMINI_VEO_BASE } from "./gemini-veo";
import { googleToken } from "./google-sa-token";
import { KLING_BASE, klingToken } from "./kling-video";
import { SEEDANCE_BASE } from "./seedance-video";
import { vertexBaseUrl } from "./vertex";

export type Probe = { url: string; headers: Record<string, string> } | { problem: string } | { nothing: string };
export type ProbeFn = (info: UpstreamInfo) => Promise<Probe>;

const base = (info: UpstreamInfo, dflt = "") => (info.baseUrl ?? "").replace(/\/+$/, "") || dflt;
const bearer = (key: string | null): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

/** OpenAI-style: `GET {base}/models` with the bearer key. */
export const openaiProbe: ProbeFn = async (info) => ({ url: `${base(info)}/models`, headers: bearer(info.apiKey) });

export const anthropicProbe: ProbeFn = async (info) => ({ url: `${base(info)}/v1/models`, headers: { ...(info.apiKey ? { "x-api-key": info.apiKey } : {}), "anthropic-version": "2023-06-01" } });

export const geminiProbe: ProbeFn = async (info) => {
  const headers: Record<string, string> = {};
  if (info.apiKey) headers["x-goog-api-key"] = info.apiKey;
  return { url: `${base(info, GEMINI_VEO_BASE)}/v1beta/models`, headers };
};

/** A signed read of the region's model list: the keys (or the AWS credential chain) are accepted. */
export const bedrockProbe: ProbeFn = async (info) => {
  const url = bedrockControlUrl(info);
  try {
    return { url, headers: await signBedrock(info, "GET", url, undefined, { accept: "application/json" }) };
  } catch {
    return { problem: "No AWS credentials: set the access keys, or give the server an AWS credential chain (environment, profile or role)." };
  }
};

/** The service account's token first, then a read of the project's Gemini model list. */
export const vertexProbe: ProbeFn = async (info) => {
  const token = await googleToken(info, AbortSignal.timeout(10_000));
  if (!token.ok) return { problem: `${token.error.message} Check the service account key (or, without one, the server's Google identity).` };
  const s = info.settings ?? {};
  return { url: `${vertexBaseUrl(info)}/v1/projects/${encodeURIComponent(s.project ?? "")}/locations/${encodeURIComponent(s.region ?? "")}/publishers/google/models`, headers: { authorization: `Bearer ${token.value}` } };
};

/** With Entra ID (or a managed identity), getting the token is the first half of the test. */
export const azureProbe: ProbeFn = async (info) => {
  const auth = await azureAuth(info, AbortSignal.timeout(10_000));
  if (!auth.ok) return { problem: `${auth.error.message} Check the tenant, client id and secret (or, without them, the server's managed identity).` };
  return { url: azureModelsUrl(info), headers: auth.value };
};

/** Kling's task list, one item: the signed token is accepted. */
export const klingProbe: ProbeFn = async (info) => {
  const c = info.credentials;
  if (!c?.accessKeyId || !c.secretAccessKey) return { problem: "Set Kling's access key and secret key." };
  return { url: `${base(info, KLING_BASE)}/v1/videos/text2video?pageNum=1&pageSize=1`, headers: { authorization: `Bearer ${klingToken(c.accessKeyId, c.secretAccessKey)}` } };
};

export const seedanceProbe: ProbeFn = async (info) => ({ url: `${base(info, SEEDANCE_BASE)}/contents/generations/tasks?page_num=1&page_size=1`, headers: bearer(info.apiKey) });

/** BFL's credit balance: the key is accepted. */
export const bflProbe: ProbeFn = async (info) => ({ url: `${base(info, BFL_BASE)}/v1/credits`, headers: xKey(info.apiKey) });

export const demoProbe: ProbeFn = async () => ({ nothing: "The built-in demo upstream needs no connection." });
