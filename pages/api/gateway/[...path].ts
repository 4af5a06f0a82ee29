/**
 * The public API (/v1, /v1beta, /upload) mounted in Next.js for deployments without the custom
 * server (Vercel); next.config.ts rewrites those paths here and server.ts serves them itself,
 * before Next. A Pages API route rather than an App route handler: it is handed node's request
 * and response, so it runs the custom server's own path (decision 0078).
 */
import { nextGatewayHandler } from "@/lib/runtime/next-adapter";

export const config = {
  // The gateway reads (and limits) the body itself, and streams replies of any size.
  api: { bodyParser: false, responseLimit: false },
};

export default nextGatewayHandler;
