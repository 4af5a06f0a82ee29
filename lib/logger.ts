/**
 * Structured JSON logs (pino). Secrets never reach a log line: credential headers and fields
 * are redacted by path, and URLs are sanitized before logging (redaction cannot see inside them).
 */
import pino, { type Logger } from "pino";
import { logLevel } from "./env";
import { processSingleton } from "./process-singleton";


export const REDACT_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  "apiKey",
  "*.apiKey",
  "key",
  "password",
  "*.password",
  "secret",
  "*.secret",
  "webhookSecret",
  "*.webhookSecret",
  "prompt",
  "*.prompt",
  "messages",
  "*.messages",
];

/** The process's logger. LOG_LEVEL is read without validating the rest of the environment, so an invalid variable can still be logged. */
export const logger = processSingleton(
  "gateway.logger",
  (): Logger =>
    pino({
      level: logLevel(),
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      serializers: { err: safeError },
      base: { pid: process.pid },
    }),
);

/**
 * Errors as pino logs them, minus bound query parameters: a failed query's error (drizzle's
 * DrizzleQueryError, and pg's) carries the values it was given — prompts, secrets — in `params`
 * and at the end of its message.
 */
export function safeError(err: unknown): unknown {
  const s = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown> | undefined;
  if (!s || typeof s !== "object") return s;
  const scrub = (o: Record<string, unknown>) => {
    delete o.params;
    if (typeof o.message === "string") o.message = o.message.replace(/\nparams: [\s\S]*$/, "\nparams: [redacted]");
    if (typeof o.stack === "string") o.stack = o.stack.replace(/\nparams: [^\n]*/g, "\nparams: [redacted]");
    if (o.cause && typeof o.cause === "object") scrub(o.cause as Record<string, unknown>);
  };
  scrub(s);
  return s;
}

/** Drops credentials from a URL before it is logged: `?key=`, userinfo. */
export function sanitizeUrl(url: string): string {
  try {
    const u = new URL(url, "http://x");
    for (const name of ["key", "api_key", "token", "sig", "signature"]) {
      if (u.searchParams.has(name)) u.searchParams.set(name, "[redacted]");
    }
    u.username = "";
    u.password = "";
    return url.startsWith("/") ? `${u.pathname}${u.search}` : u.toString();
  } catch {
    return "[unparseable url]";
  }
}
