/** `npm run db:migrate`: applies committed migrations (also done automatically at start). */
import { closeDb, migrate } from "../db/client";

await migrate();
await closeDb();
console.error("migrations applied");
