import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ nextauth: string[] }> };
let handler: ((req: Request, ctx: Ctx) => Promise<Response>) | undefined;

// Built on first request, not at import: `next build` loads this module, and the options read
// the environment and may create the generated secret under DATA_DIR.
function get() {
  handler ??= NextAuth(authOptions()) as unknown as (req: Request, ctx: Ctx) => Promise<Response>;
  return handler;
}

export function GET(req: Request, ctx: Ctx) {
  return get()(req, ctx);
}

export function POST(req: Request, ctx: Ctx) {
  return get()(req, ctx);
}
