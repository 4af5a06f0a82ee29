/**
 * Starts what the console specs run against: the real server (`npm start` through the shared
 * test harness, on a fresh PostgreSQL database when DATABASE_URL is set) with Stripe pointed
 * at the fake Stripe API, whose pay page posts signed webhooks back to the server.
 */
import { startFakeStripe } from "../tests/fakes/stripe-api";
import { startTestServer } from "../tests/support/server";

export const WEBHOOK_SECRET = "whsec_e2e_console";

export default async function globalSetup() {
  const hook = { url: "", secret: WEBHOOK_SECRET };
  const stripe = await startFakeStripe({ webhook: hook });
  if (!process.env.DATABASE_URL) console.warn("[e2e] DATABASE_URL is not set: running on embedded PGlite instead of PostgreSQL.");
  const server = await startTestServer({
    env: { STRIPE_SECRET_KEY: "sk_test_e2e", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url },
  });
  hook.url = `${server.url}/api/stripe/webhook`;
  // Workers read these; the browser uses PUBLIC_BASE_URL so that Origin matches the server's.
  process.env.E2E_BASE_URL = server.env.PUBLIC_BASE_URL;
  process.env.E2E_FAKE_STRIPE_URL = stripe.url;
  return async () => {
    await server.dispose();
    await stripe.close();
  };
}
