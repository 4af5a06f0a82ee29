// The playground's proxy to the public API (lib/playground/proxy.ts): session and Origin
// checked, the signed-in account as Principal, streams passed through unbuffered.
import { playgroundProxy } from "@/lib/playground/proxy";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = playgroundProxy;
export const POST = playgroundProxy;
