// One bounded pass of the background jobs (lib/runtime/cron.ts), called by Vercel Cron or any
// scheduler with `Authorization: Bearer $CRON_SECRET`. server.ts serves the same path itself.
import { nextCronHandler } from "@/lib/runtime/next-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = nextCronHandler;
