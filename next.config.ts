import type { NextConfig } from "next";
import { API_SECURITY_HEADERS, BASE_SECURITY_HEADERS } from "./lib/security-headers";

const asList = (h: Readonly<Record<string, string>>) => Object.entries(h).map(([key, value]) => ({ key, value }));

const nextConfig: NextConfig = {
  // PGlite, pg and friends must be loaded by Node, not bundled: one PGlite instance per data
  // folder, shared with the custom server through globalThis (see db/client.ts).
  serverExternalPackages: ["@electric-sql/pglite", "pg", "pino", "@node-rs/argon2", "undici", "nodemailer", "pdfkit"],
  // A Vercel function never opens PGlite (serverless mode needs DATABASE_URL, decision 0042), and
  // its 20 MB of WebAssembly and data were two thirds of the /v1 function's traced files: kept
  // out of every function's trace. Only traced deployments (Vercel) see this; `next start` and the
  // custom server load node_modules as they are.
  outputFileTracingExcludes: { "**": ["node_modules/@electric-sql/pglite/**"] },
  poweredByHeader: false,
  // The API's Pages route (pages/api/gateway) bundles its packages as App routes do: one chunk
  // loads faster on a cold start than hundreds of files from node_modules.
  bundlePagesRouterDependencies: true,
  // A server loads each route's code when the route is first asked for, not every page and route
  // at start: the first /v1 answer of `next start` and the custom server's first console page no
  // longer wait for (and keep in memory) the code of every other route (decision 0077). Vercel's
  // functions never preloaded (each holds its own routes).
  experimental: { preloadEntriesOnStart: false },
  // The public API is served by lib/gateway; Next must not redirect /v1 paths.
  skipTrailingSlashRedirect: true,
  // Without the custom server, the public API is the Pages API route pages/api/gateway (decision
  // 0078); a rewrite keeps the client's URL in `req.url`.
  async rewrites() {
    return { beforeFiles: [{ source: "/:api(v1|v1beta|upload)/:path*", destination: "/api/gateway/:api/:path*" }], afterFiles: [], fallback: [] };
  },
  // Type-checking runs once for the whole repo (`npm run typecheck`, in CI); the build skips it.
  typescript: { ignoreBuildErrors: true },
  // Pages add their nonce CSP in proxy.ts; routes that answer data get a CSP that allows nothing.
  async headers() {
    return [
      { source: "/:path*", headers: asList(BASE_SECURITY_HEADERS) },
      // The public API's replies (/v1, /v1beta, /upload) carry these from lib/runtime/node-gateway.ts.
      { source: "/api/:path*", headers: asList(API_SECURITY_HEADERS) },
    ];
  },
};

export default nextConfig;
