/**
 * Expected failures in lib/ are `Result`s (result.ts): this test fails when a new ad-hoc
 * `{ ok: true; … } | { ok: false; … }` type is declared, so the fold does not drift back. The
 * files allowed one say why (docs/architecture.md, "Expected failures").
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const LIB = import.meta.dirname;

/** A type member `ok: true;` / `ok: false;`, or a refusal spread into `{ ok: false } & …`. */
const AD_HOC = /\bok: (?:true|false);|\{ ok: false \} &/;

const ALLOWED: Record<string, string> = {
  "result.ts": "Ok and Err themselves",
  "views.ts": "a console view: the JSON the browser reads keeps its ok: true on the wire",
  "billing/port.ts": "Reservation: a money refusal (Refusal) spread flat, the billing's verdict",
  "billing/holds.ts": "HoldResult: a Reservation of a hold row",
  "billing/text-lease.ts": "LeaseGrant: a Reservation of a lease",
  "billing/lock-order.ts": "MoveResult and refusedOr: the Refusal thrown inside a money transaction, caught flat",
  "billing/ledger.ts": "LedgerResult: applied, duplicate (ok, nothing moved) or refused — three outcomes, not two",
  "billing/admin-debit.ts": "DebitResult: a LedgerResult with the held refusal",
  "tasks/task-lifecycle.ts": "CreateTaskResult: the Reservation a video task's admission takes",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

describe("Result", () => {
  it("is the one shape of an expected failure in lib/: no ad-hoc ok unions outside the allow-list", () => {
    const found: string[] = [];
    for (const file of sources(LIB)) {
      const rel = path.relative(LIB, file).split(path.sep).join("/");
      if (rel in ALLOWED) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (AD_HOC.test(line)) found.push(`lib/${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, "declare Result<T, E> (or Ok<T> | an interface extending Err<E>) from lib/result.ts instead").toEqual([]);
  });

  it("the allow-list names only files that still need it", () => {
    const stale = Object.keys(ALLOWED).filter((rel) => !AD_HOC.test(readFileSync(path.join(LIB, rel), "utf8")));
    expect(stale, "no ad-hoc ok union left here: delete it from ALLOWED").toEqual([]);
  });
});
