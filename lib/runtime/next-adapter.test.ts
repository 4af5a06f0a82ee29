/**
 * The Next mount answers a JSON error, never an empty 500, when it cannot serve: serverless mode
 * without DATABASE_URL (the embedded database needs one long-lived process and a disk).
 */
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env";
import { nextCronHandler, nextGatewayHandler } from "./next-adapter";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetEnvCache();
});

describe("the Next mount without a database", () => {
  it.each([
    ["SERVERLESS", "1"],
    ["VERCEL", "1"],
  ])("%s=%s and no DATABASE_URL: 503 with a JSON error naming it", async (name, value) => {
    delete process.env.DATABASE_URL;
    process.env[name] = value;
    resetEnvCache();
    for (const r of [await nextGatewayHandler(new Request("http://gw.test/v1/models")), await nextCronHandler(new Request("http://gw.test/api/cron/tick"))]) {
      expect(r.status).toBe(503);
      const body = (await r.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("gateway_unavailable");
      expect(body.error.message).toContain("DATABASE_URL is not set");
    }
  });

  it("an invalid environment variable is named in the JSON error", async () => {
    process.env.DATABASE_POOL_SIZE = "lots";
    resetEnvCache();
    const r = await nextGatewayHandler(new Request("http://gw.test/v1/models"));
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { message: string } }).error.message).toContain("DATABASE_POOL_SIZE");
  });
});
