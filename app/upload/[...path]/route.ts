// Google's resumable file uploads (`/upload/v1beta/files`), mounted in Next.js for deployments without the custom server (server.ts
// serves these paths itself, before Next). All behaviour lives in lib/gateway.
import { nextGatewayHandler } from "@/lib/runtime/next-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = nextGatewayHandler;
export const POST = nextGatewayHandler;
export const PUT = nextGatewayHandler;
export const PATCH = nextGatewayHandler;
export const DELETE = nextGatewayHandler;
