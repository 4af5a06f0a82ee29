/**
 * The last-owner rule under races (issue 32, item 7): two owners of one organisation, each on
 * their own instance of two sharing one PostgreSQL database, leave at the same moment, or demote
 * each other at the same moment. Many trials; after every one the organisation still has an
 * owner, and exactly one of the two changes went through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type Session } from "../console-helpers";
import { startTestServer, usesPostgres, type TestServer } from "../support/server";

const TRIALS = 15;
let a: TestServer;
let b: TestServer;
let one: Session;
let two: Session;
let orgId: string;
const ids: Record<string, string> = {};
const rejoined = new Set<string>();

const owners = async () => (await a.query<{ user_id: string }>("select user_id from memberships where account_id = $1 and role = 'owner'", [orgId])).map((r) => r.user_id);

/** Brings `who` back as a second owner, through `by` (the organisation's remaining owner). */
async function restore(by: Session, who: Session) {
  const member = (await a.query("select 1 from memberships where account_id = $1 and user_id = $2", [orgId, ids[who.email]])).length > 0;
  // The first trial joins through an invitation; later ones put the membership back directly
  // (15 invitations to one inbox within the hour would pass its email limit, decision 0040).
  if (!member && !rejoined.has(who.email)) {
    rejoined.add(who.email);
    const inv = await by.json("/api/console/orgs/invites", { method: "POST", body: { email: who.email, role: "member" } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    const joined = await who.json("/api/console/join", { method: "POST", body: { token: new URL(inv.body.invite.url).searchParams.get("token") } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
  } else if (!member) await a.query("insert into memberships (account_id, user_id, role) values ($1, $2, 'member')", [orgId, ids[who.email]]);
  const up = await by.json(`/api/console/orgs/members/${ids[who.email]}`, { method: "PATCH", body: { role: "owner" } });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
}

beforeAll(async () => {
  if (!usesPostgres()) return;
  a = await startTestServer();
  b = await startTestServer({ shareWith: a });
  await signUp(a); // the first user is the gateway admin
  one = await signUp(a);
  two = await signUp(b);
  for (const s of [one, two]) ids[s.email] = (await s.json("/api/console/me")).body.user.id;
  orgId = (await one.json("/api/console/orgs", { method: "POST", body: { name: "Two owners" } })).body.org.id;
  await restore(one, two);
}, 180_000);

afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
});

describe.skipIf(!usesPostgres())("two owners at once, on two instances", () => {
  it.each([
    ["both leave", (s: Session) => s.json(`/api/console/orgs/members/${ids[s.email]}`, { method: "DELETE" })],
    ["each demotes the other", (s: Session) => s.json(`/api/console/orgs/members/${ids[(s === one ? two : one).email]}`, { method: "PATCH", body: { role: "admin" } })],
  ] as const)("%s: the organisation always keeps an owner", async (_, act) => {
    const outcomes: string[] = [];
    for (let i = 0; i < TRIALS; i++) {
      expect((await owners()).sort()).toEqual([ids[one.email], ids[two.email]].sort());
      const [r1, r2] = await Promise.all([act(one), act(two)]);
      outcomes.push(`${r1.status}/${r2.status}`);
      const left = await owners();
      expect(left.length, `trial ${i}: ${outcomes.at(-1)}`).toBe(1);
      expect([r1.status, r2.status].filter((s) => s === 200), `trial ${i}`).toHaveLength(1);
      const keeper = left[0] === ids[one.email] ? one : two;
      await restore(keeper, keeper === one ? two : one);
    }
    const tally: Record<string, number> = {};
    for (const o of outcomes) tally[o] = (tally[o] ?? 0) + 1;
    console.log(`${_}: ${TRIALS} trials, outcomes ${JSON.stringify(tally)}`);
    // The refused one is told why: the rule (409) or, demoted a moment ago, its own role (403).
    expect(outcomes.every((o) => /^(200\/(409|403)|(409|403)\/200)$/.test(o)), outcomes.join(" ")).toBe(true);
  }, 180_000);
});
