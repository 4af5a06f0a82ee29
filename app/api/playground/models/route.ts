import { env } from "@/lib/env";
import { AppError } from "@/lib/console/errors";
import { consoleRoute } from "@/lib/console/route";
import { playgroundModels } from "@/lib/playground/models";
import { playgroundPrincipal } from "@/lib/playground/principal";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The account's text, image and video models with integer micro-USD prices, and the base URL for code samples. */
export const GET = consoleRoute(async ({ user }) => {
  const who = await playgroundPrincipal(user);
  if (!who.ok) throw new AppError("forbidden", "This account is disabled.");
  return { items: await playgroundModels(who.value), publicBaseUrl: env().publicBaseUrl };
});
