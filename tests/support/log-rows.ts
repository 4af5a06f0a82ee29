import { usesPostgres, type TestServer } from "./server";

/** Request-log token columns are 64-bit (pg returns them as strings): read them back as numbers. */
export function tokensAsNumbers<T extends Record<string, unknown>>(row: T): T {
  const out: Record<string, unknown> = { ...row };
  for (const [k, v] of Object.entries(out)) if (k.endsWith("_tokens") && typeof v === "string") out[k] = Number(v);
  return out as T;
}

/** The request's log row once written (settlement is asynchronous), tokens as numbers; null without PostgreSQL. */
export async function logRowOf(server: TestServer, requestId: string): Promise<Record<string, any> | null> {
  if (!usesPostgres()) return null;
  for (let i = 0; i < 100; i++) {
    const rows = await server.query("select * from request_logs where request_id = $1", [requestId]);
    if (rows[0]) return tokensAsNumbers(rows[0] as Record<string, unknown>);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no request log row for ${requestId}`);
}
