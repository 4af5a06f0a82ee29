import { describe, expect, it } from "vitest";
import { BalanceView } from "./balance-view";

describe("BalanceView", () => {
  it("knows nothing until a settlement reads the balance back", () => {
    const v = new BalanceView(1000);
    expect(v.charge("a", 10, 0)).toBeNull();
    v.settled("a", 10, 990, 1);
    expect(v.charge("a", 5, 2)).toBe(985);
  });

  it("charges issued before a read-back stay counted until they settle, in order", () => {
    const v = new BalanceView(1000);
    v.charge("a", 10, 0);
    v.settled("a", 10, 1000, 0);
    // Three in flight: each answer is the balance after it and everything issued before it.
    expect(v.charge("a", 1, 1)).toBe(999);
    expect(v.charge("a", 2, 1)).toBe(997);
    v.settled("a", 1, 999, 2); // the first settles; the database says 999 after it
    expect(v.charge("a", 3, 3)).toBe(994);
    v.settled("a", 2, 997, 4);
    v.settled("a", 3, 994, 4);
    expect(v.charge("a", 4, 5)).toBe(990);
  });

  it("a read-back carries changes made elsewhere (another instance, a refund)", () => {
    const v = new BalanceView(1000);
    v.settled("a", 0, 500, 0);
    expect(v.charge("a", 10, 1)).toBe(490);
    v.settled("a", 10, 1490, 2); // someone credited 1000 meanwhile
    expect(v.charge("a", 10, 3)).toBe(1480);
  });

  it("an old read-back is not trusted", () => {
    const v = new BalanceView(1000);
    v.settled("a", 0, 500, 0);
    expect(v.charge("a", 10, 1001)).toBeNull();
  });

  it("a change of another kind is forgotten for a while, then read-backs count again", () => {
    const v = new BalanceView(1000);
    v.settled("a", 0, 500, 0);
    v.forget("a", 10);
    expect(v.charge("a", 10, 11)).toBeNull();
    v.settled("a", 10, 1490, 12); // read back inside the window: not trusted yet
    expect(v.charge("a", 10, 13)).toBeNull();
    v.settled("a", 10, 1480, 1011);
    expect(v.charge("a", 5, 1012)).toBe(1475);
  });

  it("a failed settlement forgets the balance and stops counting its charge", () => {
    const v = new BalanceView(1000);
    v.settled("a", 0, 500, 0);
    v.charge("a", 10, 1);
    v.settled("a", 10, null, 2);
    expect(v.charge("a", 5, 3)).toBeNull();
    v.settled("a", 5, 495, 4);
    expect(v.charge("a", 1, 5)).toBe(494);
  });

  it("accounts are independent", () => {
    const v = new BalanceView(1000);
    v.settled("a", 0, 500, 0);
    expect(v.charge("b", 1, 1)).toBeNull();
    expect(v.charge("a", 1, 1)).toBe(499);
  });
});
