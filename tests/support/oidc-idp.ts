/**
 * A real OpenID Provider (oidc-provider) on a random loopback port, with its development login
 * and consent pages, and `signInThrough` to drive them as a browser would: follow redirects with
 * the provider's cookies, log in as an account, consent, and stop at the relying party's callback.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TestIdp {
  issuer: string;
  close(): Promise<void>;
  /** From our authorization redirect to the URL the provider sends the browser back to (under `stopAt`). */
  signInThrough(authorizationUrl: string, account: string, stopAt: string): Promise<URL>;
}

export async function startOidcIdp(opts: { clients: { client_id: string; client_secret: string; redirect_uris: string[] }[]; accounts: Record<string, TestAccount> }): Promise<TestIdp> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: opts.clients.map((c) => ({ ...c, grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" })),
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["test-cookie-key"] },
    async findAccount(_ctx, sub) {
      const a = opts.accounts[sub];
      if (!a) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...a }) };
    },
  });
  server.on("request", provider.callback());
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair!.indexOf("=");
      jar.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim());
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

  async function signInThrough(authorizationUrl: string, account: string, stopAt: string): Promise<URL> {
    jar.clear();
    let url = new URL(authorizationUrl);
    let init: RequestInit = {};
    for (let hop = 0; hop < 20; hop++) {
      if (url.href.startsWith(stopAt)) return url;
      const res = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as object), cookie: cookie() } });
      keep(res);
      init = {};
      const location = res.headers.get("location");
      if (location) {
        url = new URL(location, url);
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      if (!action || !prompt) throw new Error(`unexpected page from the provider (${res.status}): ${html.slice(0, 300)}`);
      const form = new URLSearchParams({ prompt, ...(prompt === "login" ? { login: account, password: "any" } : {}) });
      url = new URL(action.replace(/&amp;/g, "&"), url);
      init = { method: "POST", body: form.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } };
    }
    throw new Error("too many hops at the provider");
  }

  return { issuer, signInThrough, close: () => new Promise<void>((r) => server.close(() => r())) };
}
