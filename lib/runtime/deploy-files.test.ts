/**
 * The deployment files agree with the code and with each other (docs/deploy.md): vercel.json's
 * cron calls the tick route and its functions name route files that exist; package.json's
 * engines, the Dockerfile's base image and CI use one Node line.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CRON_PATH } from "./cron";

const root = path.resolve(import.meta.dirname, "../..");
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");

describe("deployment files", () => {
  it("vercel.json: the cron calls the tick route, every function entry is a route file, the build migrates", () => {
    const v = JSON.parse(read("vercel.json")) as { buildCommand: string; crons: { path: string }[]; functions: Record<string, { maxDuration: number }> };
    expect(v.crons.map((c) => c.path)).toEqual([CRON_PATH]);
    expect(fs.existsSync(path.join(root, "app", CRON_PATH, "route.ts"))).toBe(true);
    for (const [file, f] of Object.entries(v.functions)) {
      expect(fs.existsSync(path.join(root, file)), file).toBe(true);
      expect(f.maxDuration).toBeGreaterThanOrEqual(60);
    }
    expect(v.buildCommand).toMatch(/^npm run db:migrate && /);
  });

  it("one Node line: engines, the Dockerfile's base image and CI", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    const major = Number(/>=\s*(\d+)/.exec(engines)?.[1]);
    expect(major).toBeGreaterThanOrEqual(22);
    expect(read("Dockerfile")).toMatch(new RegExp(`ARG NODE_IMAGE=node:${major}-`));
    expect(read(".ci/run")).toMatch(new RegExp(`NODE_MAJORS=\\(${major} `));
  });
});
