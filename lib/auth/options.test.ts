import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env";
import { authOptions } from "./options";

const KEYS = ["AUTH_SECRET", "GITHUB_ID", "GITHUB_SECRET", "GOOGLE_ID", "GOOGLE_SECRET", "PUBLIC_BASE_URL", "NEXTAUTH_URL"];
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));

function withEnv(vars: Record<string, string>) {
  for (const k of KEYS) delete process.env[k];
  Object.assign(process.env, { AUTH_SECRET: "unit-test-secret-unit-test-secret", ...vars });
  resetEnvCache();
  return authOptions();
}

afterEach(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetEnvCache();
});

describe("authOptions", () => {
  it("offers email and password only by default, with JWT sessions and our pages", () => {
    const o = withEnv({ PUBLIC_BASE_URL: "https://gw.example.com/" });
    expect(o.providers.map((p) => p.id)).toEqual(["credentials"]);
    expect(o.session?.strategy).toBe("jwt");
    expect(o.pages?.signIn).toBe("/signin");
    expect(o.secret).toBe("unit-test-secret-unit-test-secret");
    expect(process.env.NEXTAUTH_URL).toBe("https://gw.example.com");
  });

  it("switches GitHub and Google on when both of their variables are set", () => {
    expect(withEnv({ GITHUB_ID: "id" }).providers.map((p) => p.id)).toEqual(["credentials"]);
    const o = withEnv({ GITHUB_ID: "gh", GITHUB_SECRET: "s", GOOGLE_ID: "go", GOOGLE_SECRET: "s" });
    expect(o.providers.map((p) => p.id)).toEqual(["credentials", "github", "google"]);
  });
});
