/**
 * The public API sees inside an organisation what the console shows (issue 32, item 4): keys of
 * an owner, an admin and a billing member reach every member's stored responses and videos; a
 * member's key reaches only what that member's keys made. Another member's id is a 404 on every
 * route — retrieve, input_items, stream resume, delete, cancel, previous_response_id,
 * item_reference, the video list, video, content, delete and the Task — as an unknown id is.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "./console-helpers";
import { startFakeOpenAIVideoUpstream, type FakeOpenAIVideoUpstream } from "./fakes/openai-video-upstream";
import { startTestServer, type TestServer } from "./support/server";
import { apiClient, videoGatewayConfig, type Api } from "./video-config";

type Role = "owner" | "admin" | "billing" | "member";
let server: TestServer;
let fake: FakeOpenAIVideoUpstream;
const keys: Record<string, string> = {};
const api = (who: string) => apiClient(server, keys[who]!).call;
/** What member "m1" made with its key: a stored response, its output item, a background one, a video. */
let made: { response: string; item: string; background: string; video: string };
let owner: Session;
const userIds: Record<string, string> = {};

async function join(owner: Session, s: Session, role: Role) {
  const inv = await owner.json("/api/console/orgs/invites", { method: "POST", body: { email: s.email, role: role === "billing" ? "member" : role } });
  expect(inv.status, JSON.stringify(inv.body)).toBe(200);
  const joined = await s.json("/api/console/join", { method: "POST", body: { token: new URL(inv.body.invite.url).searchParams.get("token") } });
  expect(joined.status, JSON.stringify(joined.body)).toBe(200);
}

async function newKey(s: Session): Promise<string> {
  const r = await s.json("/api/console/keys", { method: "POST", body: { name: "k", allowedModels: [] } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.key.key;
}

async function videoDone(id: string) {
  for (let i = 0; i < 200; i++) {
    if ((await api("m1")("GET", `/v1/videos/${id}`)).json.status === "completed") return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("video did not complete");
}

beforeAll(async () => {
  fake = await startFakeOpenAIVideoUpstream({ stepsToComplete: 1 });
  server = await startTestServer({ config: videoGatewayConfig(fake.baseUrl, fake.apiKey), env: { TASK_POLL_INTERVAL_MS: "100" } });
  await signUp(server); // the first user is the gateway admin
  owner = await signUp(server);
  const orgId = (await owner.json("/api/console/orgs", { method: "POST", body: { name: "Team" } })).body.org.id;
  await server.query("update accounts set balance_micro_usd = 5000000 where id = $1", [orgId]);
  await server.query("insert into ledger_entries (account_id, delta_micro_usd, balance_after_micro_usd, kind, idempotency_key) values ($1, 5000000, 5000000, 'admin_credit', 'test-credit')", [orgId]);
  keys.owner = await newKey(owner);
  for (const [who, role] of [["admin", "admin"], ["billing", "billing"], ["m1", "member"], ["m2", "member"]] as const) {
    const s = await signUp(server);
    await join(owner, s, role);
    // A billing member makes no keys; this one made its key as a member before it became billing.
    keys[who] = await newKey(s);
    userIds[who] = (await s.json("/api/console/me")).body.user.id;
    if (role === "billing") expect((await owner.json(`/api/console/orgs/members/${userIds[who]}`, { method: "PATCH", body: { role: "billing" } })).status).toBe(200);
  }
  const r = await api("m1")("POST", "/v1/responses", { model: "demo-chat", input: "hello from m1" });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  const bg = await api("m1")("POST", "/v1/responses", { model: "demo-chat", input: "in the background", background: true });
  expect(bg.status, JSON.stringify(bg.json)).toBe(200);
  const v = await api("m1")("POST", "/v1/videos", { model: "vid-a", prompt: "m1's secret prompt", seconds: "10", size: "1280x720" });
  expect(v.status, JSON.stringify(v.json)).toBe(200);
  made = { response: r.json.id, item: r.json.output[0].id, background: bg.json.id, video: v.json.id };
  await videoDone(made.video);
}, 180_000);

afterAll(async () => {
  await server?.dispose();
  await fake?.close();
});

const notFound = (r: Api, what: string) => expect(r.status, `${what}: ${JSON.stringify(r.json)}`).toBe(404);

describe("another member's key", () => {
  it("finds none of m1's stored responses: retrieve, input_items, stream, delete, cancel, chaining", async () => {
    const m2 = api("m2");
    notFound(await m2("GET", `/v1/responses/${made.response}`), "retrieve");
    notFound(await m2("GET", `/v1/responses/${made.response}/input_items`), "input_items");
    notFound(await m2("GET", `/v1/responses/${made.background}?stream=true`), "stream");
    notFound(await m2("POST", `/v1/responses/${made.background}/cancel`), "cancel");
    notFound(await m2("DELETE", `/v1/responses/${made.response}`), "delete");
    const prev = await m2("POST", "/v1/responses", { model: "demo-chat", input: "go on", previous_response_id: made.response });
    notFound(prev, "previous_response_id");
    expect(prev.json.error.code).toBe("previous_response_not_found");
    const ref = await m2("POST", "/v1/responses", { model: "demo-chat", input: [{ type: "item_reference", id: made.item }] });
    notFound(ref, "item_reference");
    expect(ref.json.error.code).toBe("item_not_found");
    // Nothing was deleted: m1 still has it.
    expect((await api("m1")("GET", `/v1/responses/${made.response}`)).status).toBe(200);
  });

  it("finds none of m1's videos: list, video, content, delete, task, list cursor", async () => {
    const m2 = api("m2");
    const list = await m2("GET", "/v1/videos?limit=100");
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([]);
    expect(JSON.stringify(list.json)).not.toContain("secret prompt");
    notFound(await m2("GET", `/v1/videos/${made.video}`), "video");
    notFound(await m2("GET", `/v1/videos/${made.video}/content`), "content");
    notFound(await m2("GET", `/v1/tasks/${made.video}`), "task");
    notFound(await m2("DELETE", `/v1/videos/${made.video}`), "delete");
    expect((await m2("GET", `/v1/videos?after=${made.video}`)).status).toBe(400); // not one of theirs
    expect((await api("m1")("GET", `/v1/videos/${made.video}/content`)).status).toBe(200);
  });

  it("m1 in turn finds nothing of the owner's", async () => {
    const own = await api("owner")("POST", "/v1/responses", { model: "demo-chat", input: "the owner's" });
    notFound(await api("m1")("GET", `/v1/responses/${own.json.id}`), "owner's response");
    const ids = (await api("m1")("GET", "/v1/videos")).json.data.map((v: { id: string }) => v.id);
    expect(ids).toEqual([made.video]);
  });
});

describe.each(["owner", "admin", "billing"] as const)("a key of the %s", (who) => {
  it("reaches every member's stored responses and videos, as the console shows them", async () => {
    const k = api(who);
    expect((await k("GET", `/v1/responses/${made.response}`)).status).toBe(200);
    expect((await k("GET", `/v1/responses/${made.response}/input_items`)).json.data[0].content).toBeDefined();
    expect((await k("GET", `/v1/videos/${made.video}`)).status).toBe(200);
    expect((await k("GET", `/v1/tasks/${made.video}`)).status).toBe(200);
    expect((await k("GET", "/v1/videos?limit=100")).json.data.map((v: { id: string }) => v.id)).toContain(made.video);
  });
});

describe("a role change", () => {
  it("widens or narrows what the member's existing key reaches at once (cached keys reload)", async () => {
    const m2 = api("m2");
    notFound(await m2("GET", `/v1/responses/${made.response}`), "before");
    const role = (r: string) => owner.json(`/api/console/orgs/members/${userIds.m2}`, { method: "PATCH", body: { role: r } });
    expect((await role("admin")).status).toBe(200);
    expect((await m2("GET", `/v1/responses/${made.response}`)).status).toBe(200);
    expect((await role("member")).status).toBe(200);
    notFound(await m2("GET", `/v1/responses/${made.response}`), "after");
  });
});
