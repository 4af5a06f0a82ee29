/** The SCIM service (lib/scim/http.ts) on node:http: the custom server serves /scim/v2 before Next. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { handleScim, SCIM_PREFIX } from "../scim/http";

export function isScimPath(url: string): boolean {
  return url === SCIM_PREFIX || url.startsWith(`${SCIM_PREFIX}/`) || url.startsWith(`${SCIM_PREFIX}?`);
}

const LIMIT = 1 << 20;

export async function serveScim(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (req.method !== "GET" && req.method !== "HEAD") {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > LIMIT + 1) break; // handleScim answers 413 for what is over the limit
      chunks.push(chunk);
    }
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const r = await handleScim(new Request(new URL(req.url ?? "/", "http://localhost"), { method: req.method, headers, body }));
  res.writeHead(r.status, Object.fromEntries(r.headers));
  res.end(Buffer.from(await r.arrayBuffer()));
}
