/**
 * Fake Azure OpenAI (learn.microsoft.com, "Azure OpenAI in Foundry Models REST API" and "API
 * version lifecycle"): Chat Completions on the v1 path (/openai/v1/chat/completions, the
 * deployment in `model`) and the dated path (/openai/deployments/{deployment}/chat/completions
 * with a supported `api-version`, else 404 "Resource not found"); the key in `api-key`, or an
 * Entra ID bearer token; content-filter annotations on every answer and Azure's content-filter
 * refusal (400, `code: "content_filter"`) for a prompt that trips it. Plus a fake Entra ID token
 * endpoint (client_credentials grant) that counts what it issued.
 */
import http, { type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { chatProtocol } from "./openai-upstream";
import { startFake, type FakeTextUpstream, type Protocol } from "./text-fake-core";

export const AZURE_FAKE_KEY = "azure-fake-key-0123456789abcdef";
export const AZURE_DEPLOYMENT = "gpt-4o-prod";
export const AZURE_API_VERSIONS = ["2024-10-21", "2025-04-01-preview"];
/** A prompt containing this trips the fake's content filter. */
export const FILTER_TRIGGER = "how to build a weapon";

const SAFE = { filtered: false, severity: "safe" };
const FILTER_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
const PROMPT_FILTER = [{ prompt_index: 0, content_filter_results: { ...FILTER_RESULTS, jailbreak: { filtered: false, detected: false } } }];
const FILTERED = "content_filter:";

function refusal(req: IncomingMessage, body: any, path: string): { status: number; message: string } | null {
  const u = new URL(path, "http://fake");
  if (u.pathname.startsWith("/openai/deployments/")) {
    const v = u.searchParams.get("api-version");
    if (!v || !AZURE_API_VERSIONS.includes(v)) return { status: 404, message: "Resource not found" };
    if (decodeURIComponent(u.pathname.split("/")[3]!) !== AZURE_DEPLOYMENT)
      return { status: 404, message: "The API deployment for this resource does not exist." };
  } else if (body?.model !== AZURE_DEPLOYMENT) return { status: 404, message: "The API deployment for this resource does not exist." };
  if (JSON.stringify(body?.messages ?? "").includes(FILTER_TRIGGER))
    return { status: 400, message: `${FILTERED}The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.` };
  const message = chatProtocol.refuse?.(req, body, path);
  return message ?? null;
}

function azureProtocol(auth: "api-key" | "bearer"): Protocol {
  return {
    match: (path, body) => (/^\/openai\/(v1|deployments\/[^/]+)\/chat\/completions(\?|$)/.test(path) ? { stream: body?.stream === true } : null),
    keyOf: (req) => (auth === "api-key" ? (req.headers["api-key"] as string | undefined) : req.headers.authorization?.replace(/^Bearer /, "")),
    refuse: refusal,
    errorBody: (status, message) =>
      message.startsWith(FILTERED)
        ? {
            error: {
              message: message.slice(FILTERED.length),
              type: null,
              param: "prompt",
              code: "content_filter",
              status: 400,
              innererror: { code: "ResponsibleAIPolicyViolation", content_filter_result: { ...FILTER_RESULTS, violence: { filtered: true, severity: "medium" } } },
            },
          }
        : { error: { code: String(status === 401 ? "401" : status), message } },
    json: (s, body) => {
      const j = chatProtocol.json(s, body) as { choices: Array<Record<string, unknown>> };
      for (const c of j.choices) c.content_filter_results = FILTER_RESULTS;
      return { ...j, prompt_filter_results: PROMPT_FILTER };
    },
    // Azure's stream opens with the prompt's filter results in a chunk without choices.
    events: (s, body) => [
      `data: ${JSON.stringify({ id: "", object: "", created: 0, model: "", choices: [], prompt_filter_results: PROMPT_FILTER })}\n\n`,
      ...chatProtocol.events(s, body),
    ],
    truncateAt: (events) => chatProtocol.truncateAt(events),
  };
}

/** `scriptFor` answers each request from its body (an agent's tool loop), the fake's refusals and auth unchanged. */
export function startFakeAzureOpenAI(
  opts: { auth: "api-key" | "bearer"; token?: string; scriptFor?: Protocol["scriptFor"] } = { auth: "api-key" },
): Promise<FakeTextUpstream> {
  const protocol = azureProtocol(opts.auth);
  return startFake(opts.scriptFor ? { ...protocol, scriptFor: opts.scriptFor } : protocol, opts.auth === "api-key" ? AZURE_FAKE_KEY : (opts.token ?? ENTRA_FAKE_TOKEN), "");
}

export const ENTRA_FAKE_TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.fake-entra-access-token";
export const ENTRA_CLIENT = { tenantId: "00000000-0000-0000-0000-000000000001", clientId: "11111111-2222-3333-4444-555555555555", clientSecret: "entra-fake-client-secret-value" };

export interface FakeEntra {
  /** The token URL for the fake tenant. */
  tokenUrl: string;
  /** The form bodies of the token requests received. */
  requests: Array<Record<string, string>>;
  /** Lifetime of the tokens issued, in seconds. */
  expiresIn: number;
  close(): Promise<void>;
}

/** POST /{tenant}/oauth2/v2.0/token with the client_credentials grant, as Microsoft's endpoint takes it. */
export async function startFakeEntra(): Promise<FakeEntra> {
  const fake: FakeEntra = { tokenUrl: "", requests: [], expiresIn: 3599, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c));
    req.on("end", () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      fake.requests.push(form);
      const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.url !== `/${ENTRA_CLIENT.tenantId}/oauth2/v2.0/token` || req.headers["content-type"] !== "application/x-www-form-urlencoded")
        return send(400, { error: "invalid_request", error_description: "AADSTS900144: The request body must contain the following parameter: 'grant_type'." });
      if (form.grant_type !== "client_credentials" || form.scope !== "https://cognitiveservices.azure.com/.default")
        return send(400, { error: "invalid_request", error_description: "AADSTS70011: The provided value for the input parameter 'scope' is not valid." });
      if (form.client_id !== ENTRA_CLIENT.clientId || form.client_secret !== ENTRA_CLIENT.clientSecret)
        return send(401, { error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret provided." });
      send(200, { token_type: "Bearer", expires_in: fake.expiresIn, ext_expires_in: fake.expiresIn, access_token: ENTRA_FAKE_TOKEN });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  fake.tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${ENTRA_CLIENT.tenantId}/oauth2/v2.0/token`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
