/** Reads and validates the gateway config file; every failure is one message naming the file and field. */
import fs from "node:fs";
import path from "node:path";
import { rawEnv } from "../env";
import { configSchema, type GatewayConfig } from "./schema";

export class ConfigError extends Error {}

/** Replaces `${ENV_NAME}` in every string value, so secrets stay out of the file. */
function interpolate(value: unknown, at: string, env: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined) throw new ConfigError(`${at}: environment variable ${name} is not set`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, `${at}[${i}]`, env));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, at ? `${at}.${k}` : k, env)]));
  }
  return value;
}

function pathString(p: readonly PropertyKey[]): string {
  return p.reduce<string>((s, seg) => (typeof seg === "number" ? `${s}[${seg}]` : s ? `${s}.${String(seg)}` : String(seg)), "");
}

export function parseConfig(text: string, file: string, env: Readonly<Record<string, string | undefined>> = rawEnv()): GatewayConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`Invalid gateway config ${file}: not valid JSON (${(err as Error).message})`);
  }
  try {
    raw = interpolate(raw, "", env);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`Invalid gateway config ${file}: ${err.message}`);
    throw err;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = pathString(issue.path) || "(top level)";
    throw new ConfigError(`Invalid gateway config ${file}: ${where}: ${issue.message}`);
  }
  return parsed.data;
}

/** The file GATEWAY_CONFIG names, else ./gateway.config.json if present, else null (demo catalog). */
export function resolveConfigPath(configured: string | undefined, cwd = process.cwd()): string | null {
  if (configured) return path.resolve(cwd, configured);
  const dflt = path.resolve(cwd, "gateway.config.json");
  return fs.existsSync(dflt) ? dflt : null;
}

export function loadConfigFile(file: string): GatewayConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`Cannot read gateway config ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseConfig(text, file);
}
