import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { externalAccountFile, OIDC_SUBJECT_TOKEN, startFakeIdentity, type FakeIdentity } from "../../../tests/fakes/cloud-identity";
import { VERTEX_TOKEN } from "../../../tests/fakes/vertex-upstream";
import type { UpstreamInfo } from "../model-route";
import { googleToken } from "./google-sa-token";

let fake: FakeIdentity;
beforeAll(async () => {
  fake = await startFakeIdentity();
});
afterAll(() => fake.close());

let n = 0;
/** A fresh upstream id each time: tokens are cached per upstream. */
const upstream = (over: Partial<UpstreamInfo> = {}): UpstreamInfo => ({ id: `vx-${++n}`, protocol: "vertex", baseUrl: "", apiKey: null, timeoutMs: null, settings: { project: "acme-genai-prod", region: "us-central1" }, ...over });

describe("Google tokens without a service-account key", () => {
  it("the metadata server's token, asked with Metadata-Flavor: Google", async () => {
    const t = await googleToken(upstream({ settings: { tokenUrl: `${fake.baseUrl}/computeMetadata/v1/instance/service-accounts/default/token` } }));
    expect(t).toEqual({ ok: true, value: VERTEX_TOKEN });
  });

  it("an answer without Metadata-Flavor: Google is not the metadata server: refused, failing over", async () => {
    fake.noFlavor = true;
    try {
      const t = await googleToken(upstream({ settings: { tokenUrl: `${fake.baseUrl}/computeMetadata/v1/instance/service-accounts/default/token` } }));
      expect(t).toMatchObject({ ok: false, failover: true });
    } finally {
      fake.noFlavor = false;
    }
  });

  it("an external account with a file credential source (text), exchanged at STS and impersonated", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wif-"));
    const file = path.join(dir, "token");
    fs.writeFileSync(file, `${OIDC_SUBJECT_TOKEN}\n`);
    const account = { ...externalAccountFile(fake), credential_source: { file } };
    const t = await googleToken(upstream({ credentials: { serviceAccount: JSON.stringify(account) } }));
    expect(t).toEqual({ ok: true, value: VERTEX_TOKEN });
    expect(new URLSearchParams(fake.requests.filter((r) => r.path === "/v1/token").at(-1)!.body).get("subject_token")).toBe(OIDC_SUBJECT_TOKEN);
  });

  it("a wrong subject token is refused by STS: the operator's failure, nothing secret in the message", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wif-"));
    const file = path.join(dir, "token");
    fs.writeFileSync(file, "not-the-platform-token");
    const account = { ...externalAccountFile(fake), credential_source: { file } };
    const t = await googleToken(upstream({ credentials: { serviceAccount: JSON.stringify(account) } }));
    expect(t).toMatchObject({ ok: false, failover: true });
    expect(JSON.stringify(t)).not.toContain("not-the-platform-token");
  });
});
