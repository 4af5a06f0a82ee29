// SCIM 2.0 mounted in Next.js for deployments without the custom server (server.ts serves
// /scim/v2 itself, before Next). All behaviour lives in lib/scim.
import { handleScim } from "@/lib/scim/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = (req: Request) => handleScim(req);
export const POST = GET;
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
