/**
 * A console session over plain HTTP, as a browser gets one: sign up through /api/signup, sign
 * in through next-auth's credentials callback (CSRF cookie + token), then call console routes
 * with the session cookie and a same-site Origin.
 */
import type { TestServer } from "./support/server";

export class Session {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly server: TestServer,
    readonly email: string,
  ) {}

  /** The Origin a browser on the console would send. */
  get origin(): string {
    return new URL(this.server.env.PUBLIC_BASE_URL!).origin;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async fetch(path: string, init: { method?: string; body?: unknown; origin?: string | null; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { cookie: this.cookieHeader(), ...init.headers };
    const method = init.method ?? "GET";
    if (init.origin !== null && method !== "GET") headers.origin = init.origin ?? this.origin;
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${this.server.url}${path}`, {
      method,
      headers,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      redirect: "manual",
    });
    this.keep(res);
    return res;
  }

  async json<T = any>(path: string, init: Parameters<Session["fetch"]>[1] = {}): Promise<{ status: number; body: T }> {
    const res = await this.fetch(path, init);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }

  /** Signs in with next-auth's credentials flow; returns next-auth's error code or null. */
  async signIn(password: string, email = this.email): Promise<string | null> {
    const csrf = await this.json<{ csrfToken: string }>("/api/auth/csrf");
    const form = new URLSearchParams({ csrfToken: csrf.body.csrfToken, email, password, json: "true", callbackUrl: "/overview" });
    const r = await fetch(`${this.server.url}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { cookie: this.cookieHeader(), "content-type": "application/x-www-form-urlencoded", origin: this.origin },
      body: form.toString(),
      redirect: "manual",
    });
    this.keep(r);
    const body = (await r.json().catch(() => ({}))) as { url?: string };
    const error = body.url ? new URL(body.url, this.server.url).searchParams.get("error") : null;
    return error ?? (this.hasSession() ? null : "NoSession");
  }

  hasSession(): boolean {
    return [...this.cookies.keys()].some((k) => k.includes("next-auth.session-token"));
  }
}

let n = 0;

/** Signs up a new user through /api/signup and signs in. */
export async function signUp(server: TestServer, opts: { email?: string; password?: string } = {}): Promise<Session> {
  const email = opts.email ?? `console-${process.pid}-${Date.now()}-${n++}@example.test`;
  const password = opts.password ?? "correct horse battery staple";
  const s = new Session(server, email);
  const r = await s.json("/api/signup", { method: "POST", body: { email, password } });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${JSON.stringify(r.body)}`);
  const err = await s.signIn(password);
  if (err) throw new Error(`sign-in failed: ${err}`);
  return s;
}
