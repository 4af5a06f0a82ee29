/**
 * `npm run db:migrate`: applies committed migrations and the config file (GATEWAY_CONFIG, or the
 * demo catalog) unless that very config was applied last. The build step of a serverless
 * deployment (vercel.json), so its cold starts find both done; servers also do it at start.
 */
import { closeDb } from "../db/client";
import { prepareDatabase } from "../lib/runtime/prepare";

await prepareDatabase({ onlyIfChanged: true });
await closeDb();
console.error("migrations and the config applied");
