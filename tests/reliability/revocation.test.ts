/**
 * Key revocation and admin changes reach every instance: two web instances on one database,
 * a key revoked through one is refused by the other on its next request (LISTEN/NOTIFY, well
 * under the one second the issue allows), and a model disabled through one disappears from the
 * other's list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminOk, createAccount, createKey } from "../support/accounts";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  if (!usesPostgres()) throw new Error("needs PostgreSQL (DATABASE_URL)");
  a = await startTestServer();
  b = await startTestServer({ shareWith: a });
});
afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
});

const models = (s: TestServer, key: string) => fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });

describe("changes reach every instance", () => {
  it("refuses a key on the other instance right after it is revoked", async () => {
    const { email } = await createAccount(a);
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const key = await createKey(a, email);
      expect((await models(b, key)).status).toBe(200); // cached as valid on b
      await adminOk(a, "key", "revoke", key);
      const t0 = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - t0 < 1_000) {
        status = (await models(b, key)).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 10));
      }
      delays.push(Date.now() - t0);
      expect(status).toBe(401);
    }
    expect(Math.max(...delays)).toBeLessThan(1_000);
  });

  it("disables an account on every instance at once", async () => {
    const { email, key } = await createAccount(a);
    expect((await models(b, key)).status).toBe(200);
    await adminOk(a, "user", "disable", "--email", email);
    const t0 = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - t0 < 1_000) status = (await models(b, key)).status;
    expect(status).toBe(403);
  });
});
