import { z } from "zod";
import { getDb } from "@/db/client";
import { consoleRoute, readBody } from "@/lib/console/route";
import { addDomain, removeDomain } from "@/lib/console/identity";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const body = z.object({ domain: z.string().max(253) });

/** Verified email domains of the active organisation: gateway admins only (decision 0062). */
export const POST = consoleRoute(async ({ req, user }) => addDomain(await getDb(), user, (await readBody(req, body)).domain), { admin: true, can: "settings" });

export const DELETE = consoleRoute(async ({ url, user }) => removeDomain(await getDb(), user, url.searchParams.get("domain") ?? ""), { admin: true, can: "settings" });
