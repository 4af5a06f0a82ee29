import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite, pg and friends must be loaded by Node, not bundled: one PGlite instance per data
  // folder, shared with the custom server through globalThis (see db/client.ts).
  serverExternalPackages: ["@electric-sql/pglite", "pg", "pino", "@node-rs/argon2", "undici"],
  poweredByHeader: false,
  // The public API is served by lib/gateway; Next must not rewrite /v1 paths.
  skipTrailingSlashRedirect: true,
  // Type-checking runs once for the whole repo (`npm run typecheck`, in CI); the build skips it.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
