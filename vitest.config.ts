import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.dirname(new URL(import.meta.url).pathname);

export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    projects: [
      {
        resolve: { alias: { "@": root } },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "db/**/*.test.ts", "scripts/**/*.test.ts"],
          environment: "node",
          // Database-layer tests open PGlite (WASM) or create a PostgreSQL database first.
          hookTimeout: 60_000,
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias: { "@": root } },
        test: {
          name: "integration",
          include: ["tests/**/*.test.ts"],
          exclude: ["tests/reliability/**"],
          globalSetup: ["tests/support/global-setup.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // Each file starts its own server(s); two cores, so two files at a time.
          maxWorkers: 2,
        },
      },
      {
        resolve: { alias: { "@": root } },
        test: {
          // `npm run test:reliability`: money under load, faults, crashes, hostile input, secrets.
          name: "reliability",
          include: ["tests/reliability/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/support/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 1,
        },
      },
    ],
  },
});
