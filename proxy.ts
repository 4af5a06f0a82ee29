/**
 * Next.js proxy (formerly middleware) for pages: a fresh CSP nonce per request. Next reads the
 * nonce from the request's Content-Security-Policy header and puts it on the scripts it
 * renders; the same policy goes on the response (lib/security-headers.ts says what it allows).
 */
import { NextResponse, type NextRequest } from "next/server";
import { pageCsp } from "./lib/security-headers";

export function proxy(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID());
  const csp = pageCsp(nonce, process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp);
  headers.set("x-nonce", nonce);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  // Pages only: API routes carry the no-document policy from next.config.ts; static assets need none.
  matcher: [
    {
      source: "/((?!api/|v1/|v1beta/|upload/|_next/static|_next/image|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
